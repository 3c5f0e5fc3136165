import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// What one sync did.
public struct SyncReport: Equatable, Sendable {
    public var segmentsPulled = 0
    public var segmentsPushed = 0
    /// Field changes pushed, and the records they belong to (what `Store.pendingCount` counted).
    public var changesPushed = 0
    public var recordsPushed = 0
    public var fieldsMerged = 0
    public var conflicts = 0
    public var blobsUploaded = 0
    public var blobsDownloaded = 0
    public init() {}
}

/// Sync between a store and its repository (DESIGN.md, "Remote repository", "Merge",
/// "Failure and hostility"). Pull: one listing of `heads/` tells whether anything changed;
/// new segments of each device are fetched in order, authenticated, checked against the
/// chain, their blobs fetched, and merged in one transaction each. Push: blobs first, then
/// the segment (create-only), then the head; the outbox is cleared only after that.
/// Every step is idempotent, so a sync killed anywhere converges on the next run.
public final class Syncer {
    public let store: Store
    public let repository: Repository
    /// Changes per segment: large first syncs become several segments of bounded size.
    package var changesPerSegment = 5000
    /// Changes merged in one transaction at most (unless one segment holds more): a pull of
    /// many segments (a restore, a device long away) merges several per commit.
    package var changesPerMerge = 20_000
    /// The most segments one pull takes from one device's log: far beyond any real device
    /// (a segment per sync, every five minutes for ninety years), far below a forged head.
    static let maxNewSegments = 10_000_000
    /// How long prune lets an unreferenced attachment wait before collecting it (seconds).
    package var collectionGrace: Double = 24 * 3600
    /// Extra connections for downloading attachments in the background, each used by one
    /// thread; when more than one segment is to be pulled, a quarter of them (at least one) read
    /// segments ahead.
    package var workerBackends: [Backend] = []
    /// Segments fetched while the key derivation ran (`open`), taken before fetching one.
    var earlySegments: EarlySegments?
    /// Packs fetched meanwhile for a device that has merged nothing yet (`open`): the
    /// downloads read them before asking the server.
    var earlyPacks: EarlyPacks?
    /// Plaintext bytes of segments read ahead and not yet merged, at most (`SegmentScout`).
    package var readAheadLimit = 16 << 20
    /// Asked between steps (each segment pulled or pushed, each pack uploaded, each
    /// attachment verified): once it returns true, the work stops with `SyncError.cancelled`
    /// at the next step. Every step is whole and idempotent, so the next sync simply
    /// continues. May be called from upload threads.
    public var isCancelled: @Sendable () -> Bool = { false }

    /// Throws `.cancelled` once the caller asked to stop.
    func stopIfCancelled() throws {
        if isCancelled() { throw SyncError(.cancelled, detail: "cancelled; the next sync continues where this one stopped") }
    }

    /// Segments are written compressed (repository format 3) once the repository is known to
    /// be at that format (`moveRepositoryForward`); before, as format 2 wrote them.
    var writesCompressed = false

    /// Test hook: called at named points; a test may crash the process there.
    var checkpoint: (SyncCheckpoint) -> Void = { _ in }
    /// Bytes of attachments downloaded, and the line that shows them while a pull runs.
    let downloadMeter = ByteMeter()
    var pullProgress: PullProgress?

    var backend: Backend { repository.backend }
    static let headsFolder = "heads"

    package init(store: Store, repository: Repository) {
        self.store = store
        self.repository = repository
    }

    /// Routes the repository's and backend's step hooks to `checkpoint` (tests kill the
    /// process at named points to prove every step can be interrupted).
    package func installCheckpoints(_ checkpoint: @escaping (SyncCheckpoint) -> Void) {
        self.checkpoint = checkpoint
        repository.uploadChunk = { checkpoint(.blobUploadChunk) }
        repository.backend.onPublishStep { checkpoint(.publishTempWritten) }
    }

    // MARK: - The front: each a few lines over an engine

    /// Pull (`PullEngine`), then push (`PushEngine`).
    public func sync(progress: ((String) -> Void)? = nil) throws -> SyncReport {
        var report = SyncReport()
        let heads = try pull(into: &report, progress: progress)
        try push(heads: heads, into: &report, progress: progress)
        return report
    }

    /// Brings everything in the repository into an empty store (`Syncer+Restore.swift`): a
    /// pull whose merges do not wait for the attachments, which are taken in at the end.
    /// Resumable: a restore interrupted anywhere continues when called again.
    /// - Throws: `SyncError.notEmpty` unless the store is new or a restore of this repository.
    public func restore(progress: ((String) -> Void)? = nil) throws -> SyncReport {
        try beginRestore()
        var report = SyncReport()
        try pull(into: &report, progress: progress, finish: finishRestore(progress: progress))
        try endRestore()
        return report
    }

    /// What a download reads before asking the server: a pack fetched while the key was derived.
    func heldPack(_ pack: String) -> Repository.Window? { earlyPacks?.window(pack) }

    /// Checks that every object the journal needs is present and authentic (`VerifyEngine`);
    /// with `readData`, attachments are downloaded and decrypted in full.
    public func verify(readData: Bool, progress: ((String) -> Void)? = nil) throws -> VerifyReport {
        try VerifyEngine(self, readData: readData, progress: progress).run()
    }

    /// Repacks packs mostly garbage (`RepackEngine`), writes a snapshot and deletes what no
    /// device needs any more (`PruneEngine`). Call after a sync, so this device's state is current.
    public func prune(progress: ((String) -> Void)? = nil) throws -> PruneReport {
        try PruneEngine(self, progress: progress).run()
    }

    // MARK: - Heads

    /// Every device's newest segment number, from the names in `heads/`.
    func readHeads() throws -> [String: [Int]] { try Self.readHeads(over: backend) }

    /// The same over any connection (`EarlySegments` reads them before the repository is open).
    static func readHeads(over backend: Backend) throws -> [String: [Int]] {
        let entries: [RemoteEntry]
        do {
            entries = try backend.list(headsFolder)
        } catch let error as RemoteError where error.kind == .notFound {
            entries = []
        }
        var heads: [String: [Int]] = [:]
        for entry in entries where !entry.isFolder {
            if let head = Head(name: entry.name) { heads[head.device, default: []].append(head.seq) }
        }
        return heads
    }
}
