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
    /// Objects this device had published that the server lost, put back (`RepairEngine`).
    public var objectsRepaired = 0
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

    /// Whether the repository at the URL is known to be this store's (`confirmRepository`).
    var repositoryConfirmed = true

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

    /// Pull (`PullEngine`), then push (`PushEngine`). The pull's listing of `heads/` comes
    /// first, and confirms the repository.
    public func sync(progress: ((String) -> Void)? = nil) throws -> SyncReport {
        let lock = try SyncLock(storeFolder: store.folder)
        defer { withExtendedLifetime(lock) {} }
        var report = SyncReport()
        let heads = try pull(into: &report, progress: progress)
        try push(heads: heads, into: &report, progress: progress)
        return report
    }

    /// Brings everything in the repository into an empty store (`Syncer+Restore.swift`): a
    /// pull whose merges do not wait for the attachments, which are taken in at the end.
    /// Resumable: a restore interrupted anywhere continues when called again.
    /// With `notBefore`, a repository whose newest change is older is refused once its text
    /// is merged, before the attachments are taken in: a server that hides its newest heads.
    /// - Throws: `SyncError.notEmpty` unless the store is new or a restore of this repository;
    ///   `SyncError.stale` for a repository older than `notBefore` (the caller discards the store).
    public func restore(notBefore: Date? = nil, progress: ((String) -> Void)? = nil) throws -> SyncReport {
        let lock = try SyncLock(storeFolder: store.folder)
        defer { withExtendedLifetime(lock) {} }
        try confirmRepository()
        try beginRestore()
        var report = SyncReport()
        try pull(into: &report, progress: progress, finish: finishRestore(notBefore: notBefore, progress: progress))
        try endRestore()
        return report
    }

    /// What a download reads before asking the server: a pack fetched while the key was derived.
    func heldPack(_ pack: String) -> HeldBytes? { earlyPacks?.window(pack) }

    /// Checks that every object the journal needs is present and authentic (`VerifyEngine`);
    /// with `readData`, attachments are downloaded and decrypted in full.
    /// With `repair`, what the server lost that this store can put back goes back first
    /// (`RepairEngine`: this device's segments and head, every pack whose attachments it
    /// holds), and the report is of the repository after that.
    public func verify(readData: Bool, repair: Bool = false, progress: ((String) -> Void)? = nil) throws -> VerifyReport {
        try confirmRepository()
        guard repair else { return try VerifyEngine(self, readData: readData, progress: progress).run() }
        let lock = try SyncLock(storeFolder: store.folder)
        defer { withExtendedLifetime(lock) {} }
        let engine = RepairEngine(self, progress: progress)
        try engine.repairOwnLog(heads: try readHeads())
        try engine.repairPacks(onlyOwn: false)
        var report = try VerifyEngine(self, readData: readData, progress: progress).run()
        report.repaired = engine.repaired
        return report
    }

    /// Repacks packs mostly garbage (`RepackEngine`), writes a snapshot and deletes what no
    /// device needs any more (`PruneEngine`). Call after a sync, so this device's state is current.
    public func prune(progress: ((String) -> Void)? = nil) throws -> PruneReport {
        let lock = try SyncLock(storeFolder: store.folder)
        defer { withExtendedLifetime(lock) {} }
        try confirmRepository()
        return try PruneEngine(self, progress: progress).run()
    }

    // MARK: - Heads

    /// Every device's newest segment number, from the names in `heads/`; the first listing
    /// also confirms the repository (`confirmRepository`).
    func readHeads() throws -> [String: [Int]] {
        let (heads, strangers) = try Self.listHeads(over: backend)
        if !repositoryConfirmed { try confirmRepository(heads: heads, strangers: strangers) }
        return heads
    }

    /// The same over any connection (`EarlySegments` reads them before the repository is open).
    static func readHeads(over backend: Backend) throws -> [String: [Int]] { try listHeads(over: backend).heads }

    /// The heads listed, and how many other files `heads/` holds.
    private static func listHeads(over backend: Backend) throws -> (heads: [String: [Int]], strangers: Int) {
        let entries: [RemoteEntry]
        do {
            entries = try backend.list(headsFolder)
        } catch let error as RemoteError where error.kind == .notFound {
            entries = []
        }
        var heads: [String: [Int]] = [:], strangers = 0
        for entry in entries where !entry.isFolder {
            if let head = Head(name: entry.name) { heads[head.device, default: []].append(head.seq) } else { strangers += 1 }
        }
        return (heads, strangers)
    }

    /// Checks that the repository at the URL is there and is this journal's, with one request
    /// unless an unlock or a listing already did (a sync checks on its way, by its listing of
    /// `heads/`). For a caller that must know before it goes on: a watch that starts, a
    /// service that is installed.
    /// - Throws: `RepositoryError` (`.noRepository`, `.wrongRepository`, `.badConfig`), `RemoteError`.
    public func confirmRepository() throws { try confirmRepository(heads: nil, strangers: 0) }

    /// Makes sure the repository at the URL is the one this store syncs with, before anything
    /// is taken from it or written to it. Opened with a cached key, nothing was asked yet: the
    /// heads listing answers when it shows a log this store knows (its own, or one it merged)
    /// at least as far as this store has it, and no name this Quire does not know (a newer
    /// Quire's, whose format it may not write into). Device ids are random: only this
    /// repository, or a copy of it, holds those names. Otherwise `quire-repo.json` is read, as
    /// an unlock does: a different or missing repository, or one of a newer format, is a
    /// hard error.
    func confirmRepository(heads: [String: [Int]]?, strangers: Int) throws {
        guard !repositoryConfirmed else { return }
        if let heads, strangers == 0,
           try store.syncLogs().contains(where: { device, log in log.seq > 0 && (heads[device]?.max() ?? 0) >= log.seq }) {
            repositoryConfirmed = true
            return
        }
        try repository.confirmIdentity()
        repositoryConfirmed = true
    }
}
