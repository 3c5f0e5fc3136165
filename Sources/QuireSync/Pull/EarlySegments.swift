import Foundation
import QuireSupport
import QuireRemote

/// Segments fetched while the passphrase's key derivation runs (a second of Argon2id at the
/// default cost, on a fresh machine's first unlock): their sealed bytes, in log order from
/// where this store stands, over a worker connection that has nothing else to do yet. The
/// pull then opens them instead of fetching them, so a restore over a slow link starts its
/// attachments that much sooner. Only bytes are kept: they are authenticated when opened,
/// like any segment fetched later, and only segments a head names (which never change) are
/// fetched. At most `limit` bytes; `stop` ends the fetching after the request under way.
final class EarlySegments: Sendable {
    private struct Fetched {
        var sealed: [String: Data] = [:]
        var stopped = false
        var listing = Listing()
    }

    /// What the fetching listed to find the segments: `snapshots/` and `heads/`, each nil
    /// when it was not listed (or could not be). The pull after the key derivation takes
    /// these names instead of listing again: two round trips fewer, and the same answer a
    /// pull begun a moment earlier would have had.
    struct Listing: Sendable {
        var snapshots: [(device: String, seq: Int)]?
        var heads: Heads.Listed?
    }

    private let shared = Shared(Fetched())
    private let pool = Shared<WorkerPool<Backend>?>(nil)
    let limit: Int

    init(limit: Int = 16 << 20) { self.limit = limit }

    /// Starts fetching over `backend` on a thread of its own (a pool of one): every device's
    /// segments after `logs` (this store's positions), up to its head.
    func start(over backend: Backend, after logs: [String: Int]) {
        let pool = WorkerPool([backend])
        self.pool.withLock { $0 = pool }
        pool.submit([{ [self] in fetch(over: $0, after: logs) }])
    }

    /// Ends the fetching; returns once its connection is free again.
    func stop() {
        shared.withLock { $0.stopped = true }
        awaitEnd()
    }

    /// Waits until the fetching ended by itself: every segment it could fetch is in (tests
    /// wait on this event, never on the clock).
    func awaitEnd() {
        pool.withLock { $0 }?.close()
    }

    /// The sealed bytes of the segment at `path`, if they were fetched (once: then forgotten).
    func take(_ path: String) -> Data? {
        shared.withLock { $0.sealed.removeValue(forKey: path) }
    }

    /// What was listed, once (then forgotten): only the first pull may take it.
    func takeListing() -> Listing {
        shared.withLock { state in
            defer { state.listing = Listing() }
            return state.listing
        }
    }

    private var isStopped: Bool { shared.withLock { $0.stopped } }

    private func fetch(over backend: Backend, after logs: [String: Int]) {
        // A new device starts from the newest snapshot, if there is one: its segments are
        // not what it needs first.
        if logs.isEmpty {
            let snapshots = try? Snapshot.list(backend)
            shared.withLock { $0.listing.snapshots = snapshots }
            if snapshots?.isEmpty != true { return }
        }
        guard let listed = try? Heads.list(over: backend) else { return }
        shared.withLock { $0.listing.heads = listed }
        let heads = listed.heads
        var held = 0
        for (device, seqs) in heads.sorted(by: { $0.key < $1.key }) {
            guard let head = seqs.max() else { continue }
            var seq = (logs[device] ?? 0) + 1
            while seq <= head && held < limit && !isStopped {
                let path = LogSegment.path(device: device, seq: seq)
                // A segment that cannot be fetched now is fetched later, and named then.
                guard let data = try? backend.getData(path) else { break }
                held += data.count
                shared.withLock { $0.sealed[path] = data }
                seq += 1
            }
        }
    }
}
