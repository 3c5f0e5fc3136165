import Foundation
import QuireCrypto
import QuireRemote

/// Uploads packs over several connections at once, each used by one thread, so a push over
/// a slow link keeps several requests in flight instead of waiting out each round trip.
/// The caller's thread alone hears of each finished pack (`finished`), in the order they
/// finish, so only it touches the store. The first failure stops new uploads; those under
/// way finish, and then it is thrown.
///
/// A pack is PUT straight to its final name, one request, no temporary name and MOVE. That
/// is safe, and the argument the rest of sync relies on is:
/// 1. its name is random and new (`Pack.newPath`), so no upload can replace an object that
///    anyone reads, and two devices never write the same name;
/// 2. no segment or snapshot names a pack before its PUT was answered 2xx (segments are
///    published after every pack they name), so a half-written pack (a killed client, a
///    server such as rclone that shows a PUT in progress) is never looked for;
/// 3. every part read back is authenticated chunk by chunk and must end with its final tag,
///    so a pack cut short or damaged afterwards is never taken as good.
/// A push that dies leaves at most unnamed packs behind: garbage, never a wrong attachment.
final class PackUploader: @unchecked Sendable {
    private let backends: [Backend]
    private let keys: RepositoryKeys
    private let device: String
    private let blobPath: @Sendable (String) -> String
    private let condition = NSCondition()
    /// Called as each chunk is sealed, on the upload threads (tests crash there).
    var chunkSealed: (() -> Void)?
    /// Asked before each pack is started (`Syncer.isCancelled`).
    var isCancelled: @Sendable () -> Bool = { false }

    init(backends: [Backend], keys: RepositoryKeys, device: String, blobPath: @escaping @Sendable (String) -> String) {
        self.backends = backends
        self.keys = keys
        self.device = device
        self.blobPath = blobPath
    }

    /// A pack the server refused as too large, with the size it was.
    struct TooLarge: Error {
        let size: Int64
        let error: RemoteError
    }

    /// What the upload threads and the caller's thread share, under `condition`.
    private final class Shared: @unchecked Sendable {
        var next = 0, running = 0, sent: Int64 = 0
        var done: [(Int, String)] = []
        var failure: Error?
    }

    /// Uploads `packs`; `finished(index, path)` runs on this thread as each is stored;
    /// `progress(bytes)` too, with the bytes sent since the last call.
    func run(_ packs: [PackPlan.Pack], progress: (Int64) -> Void, finished: (Int, String) throws -> Void) throws {
        guard !packs.isEmpty else { return }
        let shared = Shared()
        let condition = self.condition
        let group = DispatchGroup()
        for backend in backends.prefix(packs.count) {
            group.enter()
            shared.running += 1
            let owned = Owned(backend)
            let thread = Thread { [self] in
                defer { group.leave() }
                while true {
                    let cancelled = isCancelled()
                    condition.lock()
                    if cancelled && shared.failure == nil {
                        shared.failure = SyncError(.cancelled, detail: "cancelled; the next sync continues where this one stopped")
                    }
                    guard shared.failure == nil, shared.next < packs.count else {
                        shared.running -= 1
                        condition.broadcast()
                        condition.unlock()
                        return
                    }
                    let index = shared.next
                    shared.next += 1
                    condition.unlock()
                    let pack = packs[index]
                    let path = Pack.newPath(device: device)
                    let source = PackSource(pack, keys: keys, path: blobPath)
                    source.onBytes = { n in condition.withLock { shared.sent += Int64(n) } }
                    source.chunkSealed = chunkSealed
                    do {
                        try owned.value.put(path, from: source)
                        condition.withLock { shared.done.append((index, path)) }
                    } catch let error as RemoteError where error.kind == .tooLarge {
                        condition.withLock { if shared.failure == nil { shared.failure = TooLarge(size: pack.padded, error: error) } }
                    } catch {
                        condition.withLock { if shared.failure == nil { shared.failure = error } }
                    }
                    condition.broadcast()
                }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        // This thread records what finished and reports progress until every thread is done.
        var reported: Int64 = 0
        while true {
            condition.lock()
            while shared.done.isEmpty && shared.running > 0 && shared.sent == reported {
                _ = condition.wait(until: Date().addingTimeInterval(0.25))
            }
            let batch = shared.done
            shared.done.removeAll()
            let sent = shared.sent, running = shared.running
            condition.unlock()
            if sent > reported { progress(sent - reported); reported = sent }
            for (index, path) in batch {
                do {
                    try finished(index, path)
                } catch {
                    condition.withLock { if shared.failure == nil { shared.failure = error } }
                }
            }
            if running == 0 && batch.isEmpty { break }
        }
        group.wait()
        if let failure = condition.withLock({ shared.failure }) { throw failure }
    }
}
