import Foundation
import QuireSupport
import QuireCrypto
import QuireRemote

/// Uploads packs over several connections at once (a `WorkerPool`, one job a pack), so a push over
/// a slow link keeps several requests in flight instead of waiting out each round trip.
/// The caller's thread alone hears of each finished pack (`collect`, `finish`), in the order
/// they finish, so only it touches the store; between those calls it is free (a push makes
/// its segments meanwhile). The first failure stops new uploads; those under way finish, and
/// then `finish` throws it.
///
/// A pack is PUT straight to its final name, one request, no temporary name and MOVE. That
/// is safe, and the argument the rest of sync relies on is:
/// 1. its name is random and new (`Pack.newPath`), so no upload can replace an object that
///    anyone reads, and two devices never write the same name;
/// 2. nothing anyone reads names a pack before its PUT was answered 2xx: no snapshot, and
///    no segment a head makes part of the log. (Its name is chosen first, so the segments
///    naming it are made, and may go up, while it uploads; but a segment is read only up to
///    its device's head, and the head is published after every pack is stored: `PushEngine`.
///    A push killed before that leaves segments past the head, which nobody reads and the
///    next push overwrites.) So a half-written pack (a killed client, a server such as
///    rclone that shows a PUT in progress) is never looked for;
/// 3. every part read back is authenticated chunk by chunk and must end with its final tag,
///    so a pack cut short or damaged afterwards is never taken as good.
/// A push that dies leaves at most unnamed packs behind: garbage, never a wrong attachment.
final class PackUploader {
    private let backends: [Backend]
    private let keys: RepositoryKeys
    private let device: String
    private let blobPath: @Sendable (String) -> String
    /// Called as each chunk is sealed, on the upload threads (tests crash there).
    var chunkSealed: (() -> Void)?
    /// Asked before each pack is started (`SyncContext.isCancelled`).
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

    /// What the upload jobs tell the caller's thread.
    private struct Progress {
        var sent: Int64 = 0
        var done: [Int] = []
    }

    private var progress = Shared(Progress())
    private var pool: WorkerPool<Backend>?
    private var reported: Int64 = 0

    /// A new name for each of `count` packs, to `start` them under.
    func newPaths(_ count: Int) -> [String] { (0..<count).map { _ in Pack.newPath(device: device) } }

    /// Uploads `packs` under new names and returns once all are stored; `finished(index, path)`
    /// runs on this thread as each is, `progress(bytes)` too, with the bytes sent since the
    /// last call.
    func run(_ packs: [PackPlan.Pack], progress: (Int64) -> Void, finished: (Int, String) throws -> Void) throws {
        let paths = newPaths(packs.count)
        start(packs, to: paths)
        try finish(progress: progress) { try finished($0, paths[$0]) }
    }

    /// Starts uploading pack `i` of `packs` to `paths[i]` and returns at once.
    func start(_ packs: [PackPlan.Pack], to paths: [String]) {
        precondition(packs.count == paths.count, "one path per pack")
        pool?.close()
        let shared = Shared(Progress())
        progress = shared
        reported = 0
        // The caller waits on `shared`; a job ending, or a failure dropping the others, wakes it.
        let pool = WorkerPool(Array(backends.prefix(packs.count)), onChange: { shared.withLock { _ in } })
        self.pool = pool
        let (keys, blobPath, chunkSealed, isCancelled) = (keys, blobPath, chunkSealed, isCancelled)
        pool.submit(packs.indices.map { index in { backend in
            if isCancelled() { throw SyncError(.cancelled, detail: "cancelled; the next sync continues where this one stopped") }
            let source = PackSource(packs[index], keys: keys, path: blobPath)
            source.onBytes = { n in shared.withLock { $0.sent += Int64(n) } }
            source.chunkSealed = chunkSealed
            do {
                try backend.put(paths[index], from: source)
            } catch let error as RemoteError where error.kind == .tooLarge {
                throw TooLarge(size: packs[index].padded, error: error)
            }
            shared.withLock { $0.done.append(index) }
        } })
    }

    /// Hands over what finished since the last call, without waiting: `finished(index)` for
    /// each pack stored, `progress(bytes)` for the bytes sent. A failure of `finished` stops
    /// the uploads and is thrown by `finish`.
    /// - Returns: false once every upload job is done and all was handed over.
    @discardableResult
    func collect(progress: (Int64) -> Void, finished: (Int) throws -> Void) -> Bool {
        collect(waiting: false, progress: progress, finished: finished)
    }

    /// Hands over everything as it finishes until every pack is stored or the first failure
    /// stopped the uploads; then throws that failure.
    func finish(progress: (Int64) -> Void, finished: (Int) throws -> Void) throws {
        while collect(waiting: true, progress: progress, finished: finished) {}
        try pool?.finish()
    }

    /// After a failure elsewhere: stops new uploads and waits for those under way (their
    /// connections are then free), recording nothing.
    func abandon() {
        pool?.fail(SyncError(.cancelled, detail: "abandoned"))
        pool?.close()
    }

    private func collect(waiting: Bool, progress report: (Int64) -> Void, finished: (Int) throws -> Void) -> Bool {
        let reported = self.reported
        let pool = self.pool
        // Idle: every pack stored or failed, or dropped by the first failure.
        var idle = false
        let (batch, sent) = progress.wait(until: { state in
            idle = pool?.isIdle ?? true
            return !waiting || idle || !state.done.isEmpty || state.sent != reported
        }) { state in
            defer { state.done.removeAll() }
            return (state.done, state.sent)
        }
        if sent > reported { report(sent - reported); self.reported = sent }
        for index in batch {
            do {
                try finished(index)
            } catch {
                pool?.fail(error)
            }
        }
        return !idle || !batch.isEmpty
    }
}
