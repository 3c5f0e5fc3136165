import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// What one sync did.
public struct SyncReport: Sendable {
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
    package init() {}

    /// Adds what another step did.
    mutating func add(_ other: SyncReport) {
        segmentsPulled += other.segmentsPulled
        segmentsPushed += other.segmentsPushed
        changesPushed += other.changesPushed
        recordsPushed += other.recordsPushed
        fieldsMerged += other.fieldsMerged
        conflicts += other.conflicts
        blobsUploaded += other.blobsUploaded
        blobsDownloaded += other.blobsDownloaded
        objectsRepaired += other.objectsRepaired
    }
}

/// Sync between a store and its repository (DESIGN.md, "Remote repository", "Merge",
/// "Failure and hostility"). Pull: one listing of `heads/` tells whether anything changed;
/// new segments of each device are fetched in order, authenticated, checked against the
/// chain, their blobs fetched, and merged in one transaction each. Push: blobs first, then
/// the segment (create-only), then the head; the outbox is cleared only after that.
/// Every step is idempotent, so a sync killed anywhere converges on the next run.
///
/// This is the front: each operation takes the store's sync lock and runs an engine over the
/// `SyncContext` (docs/ARCHITECTURE.md, "Sync").
package final class Syncer {
    package let context: SyncContext
    package var store: Store { context.store }
    package var repository: Repository { context.repository }

    /// Asked between steps (each segment pulled or pushed, each pack uploaded, each
    /// attachment verified): once it returns true, the work stops with `SyncError.cancelled`
    /// at the next step. Every step is whole and idempotent, so the next sync simply
    /// continues. May be called from upload threads.
    package var isCancelled: @Sendable () -> Bool {
        get { context.isCancelled }
        set { context.isCancelled = newValue }
    }

    package init(store: Store, repository: Repository) {
        context = SyncContext(store: store, repository: repository)
    }

    /// Routes the repository's and backend's step hooks to the context's `checkpoint` (tests
    /// kill the process at named points to prove every step can be interrupted).
    package func installCheckpoints(_ checkpoint: @escaping (SyncCheckpoint) -> Void) {
        context.checkpoint = checkpoint
        repository.uploadChunk = { checkpoint(.blobUploadChunk) }
        repository.backend.onPublishStep { checkpoint(.publishTempWritten) }
    }

    /// Pull (`PullEngine`), then push (`PushEngine`). The pull's listing of `heads/` comes
    /// first, and confirms the repository.
    package func sync(progress: ((String) -> Void)? = nil) throws -> SyncReport {
        let lock = try SyncLock(storeFolder: store.folder)
        defer { withExtendedLifetime(lock) {} }
        let pull = PullEngine(context, progress: progress)
        let heads = try pull.run()
        var report = pull.report
        report.add(try PushEngine.push(context, heads: heads, progress: progress))
        return report
    }

    /// Brings everything in the repository into an empty store (`RestoreSteps`): a pull whose
    /// merges do not wait for the attachments, which are taken in at the end.
    /// Resumable: a restore interrupted anywhere continues when called again.
    /// With `notBefore`, a repository whose newest change is older is refused once its text
    /// is merged, before the attachments are taken in: a server that hides its newest heads.
    /// - Throws: `SyncError.notEmpty` unless the store is new or a restore of this repository;
    ///   `SyncError.stale` for a repository older than `notBefore` (the caller discards the store).
    package func restore(notBefore: Date? = nil, progress: ((String) -> Void)? = nil) throws -> SyncReport {
        let lock = try SyncLock(storeFolder: store.folder)
        defer { withExtendedLifetime(lock) {} }
        try confirmRepository()
        let steps = RestoreSteps(context: context)
        try steps.begin()
        // An index built beside merges that stopped goes, with its file: a resume builds it whole.
        defer { store.dropRestoredIndexAside() }
        let pull = PullEngine(context, progress: progress, finish: steps.finish(notBefore: notBefore, progress: progress))
        try store.mergingUnderRollbackJournal { try pull.run() }
        try steps.end()
        return pull.report
    }

    /// Checks that every object the journal needs is present and authentic (`VerifyEngine`);
    /// with `readData`, attachments are downloaded and decrypted in full.
    /// With `repair`, what the server lost that this store can put back goes back first
    /// (`RepairEngine`: this device's segments and head, every pack whose attachments it
    /// holds), and the report is of the repository after that.
    package func verify(readData: Bool, repair: Bool = false, progress: ((String) -> Void)? = nil) throws -> VerifyReport {
        try confirmRepository()
        guard repair else { return try VerifyEngine(context, readData: readData, progress: progress).run() }
        let lock = try SyncLock(storeFolder: store.folder)
        defer { withExtendedLifetime(lock) {} }
        let engine = RepairEngine(context, progress: progress)
        try engine.repairOwnLog(heads: try Heads(context: context).read())
        try engine.repairPacks(onlyOwn: false)
        var report = try VerifyEngine(context, readData: readData, progress: progress).run()
        report.repaired = engine.repaired
        return report
    }

    /// Repacks packs mostly garbage (`RepackEngine`), writes a snapshot and deletes what no
    /// device needs any more (`PruneEngine`). Call after a sync, so this device's state is current.
    package func prune(progress: ((String) -> Void)? = nil) throws -> PruneReport {
        let lock = try SyncLock(storeFolder: store.folder)
        defer { withExtendedLifetime(lock) {} }
        try confirmRepository()
        return try PruneEngine(context, progress: progress).run()
    }

    /// Checks that the repository at the URL is there and is this journal's, with one request
    /// unless an unlock or a listing already did (a sync checks on its way, by its listing of
    /// `heads/`). For a caller that must know before it goes on: a watch that starts, a
    /// service that is installed.
    /// - Throws: `SyncError` (`.noRepository`, `.wrongRepository`, `.badConfig`), `RemoteError`.
    package func confirmRepository() throws { try Heads(context: context).confirm() }
}
