import Foundation
import QuireSupport
import QuireRemote

/// Segments fetched while the passphrase's key derivation runs (a second of Argon2id at the
/// default cost, on a fresh machine's first unlock): their sealed bytes, in log order from
/// where this store stands, over worker connections that have nothing else to do yet. The
/// pull then opens them instead of fetching them, so a restore over a slow link starts its
/// attachments that much sooner. Only bytes are kept: they are authenticated when opened,
/// like any segment fetched later, and only segments a head names (which never change) are
/// fetched. At most `limit` bytes; `stop` ends the fetching after the request under way.
final class EarlySegments: Sendable {
    private struct Fetched {
        var sealed: [String: Data] = [:]
        var stopped = false
        var listing = Listing()
        /// The heads are listed (by the first connection; the others wait for the list).
        var listed = false
        /// The segments left to fetch, in log order.
        var next: AnyIterator<String>?
        /// Sealed bytes fetched so far (taken ones included).
        var held = 0
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
        start(over: [backend], after: logs)
    }

    /// The same over several connections, each on a thread of its own: the first lists, then
    /// all take the next segment in log order, so a segment a round trip away costs a round
    /// trip per connection, not one each. One connection read 7 of the home set's 20 while
    /// the key was derived 30 ms away, and the merges then waited for the other 13.
    func start(over backends: [Backend], after logs: [String: Int]) {
        guard !backends.isEmpty else { return }
        let pool = WorkerPool(backends)
        self.pool.withLock { $0 = pool }
        pool.submit([{ [self] in
            list(over: $0, after: logs)
            fetch(over: $0)
        }] + (1..<backends.count).map { _ in { [self] in
            shared.wait(until: { $0.listed || $0.stopped }) { _ in }
            fetch(over: $0)
        } })
    }

    /// Ends the fetching; returns once its connections are free again.
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

    /// Finds the segments to fetch: none for a new device facing a snapshot (it starts from
    /// the snapshot), else every device's after `logs`, up to its head, in log order.
    private func list(over backend: Backend, after logs: [String: Int]) {
        defer { shared.withLock { $0.listed = true } }
        if logs.isEmpty {
            let snapshots = try? Snapshot.list(backend)
            shared.withLock { $0.listing.snapshots = snapshots }
            if snapshots?.isEmpty != true { return }
        }
        guard let listed = try? Heads.list(over: backend) else { return }
        // Lazily: a head may name millions of segments (it is checked when the pull reads it).
        let paths = listed.heads.sorted(by: { $0.key < $1.key }).lazy.flatMap { device, seqs in
            let after = logs[device] ?? 0
            return (after..<max(after, seqs.max() ?? 0)).lazy.map { LogSegment.path(device: device, seq: $0 + 1) }
        }
        let next = AnyIterator(paths.makeIterator())
        shared.withLock { state in
            state.listing.heads = listed
            state.next = next
        }
    }

    /// Takes the next segment and fetches it, until none is left, `stop`, a failure or `limit`.
    private func fetch(over backend: Backend) {
        while let path = shared.withLock({ state -> String? in
            guard !state.stopped, state.held < limit else { return nil }
            return state.next?.next()
        }) {
            // A segment that cannot be fetched now is fetched later, and named then.
            guard let data = try? backend.getData(path) else { return }
            shared.withLock { state in
                state.held += data.count
                state.sealed[path] = data
            }
        }
    }
}
