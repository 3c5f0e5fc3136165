import Foundation
import QuireStore

/// One pull: new segments of every device, in order, authenticated and chained, their
/// attachments taken in (in the background when there are worker connections), merged a
/// few at a time, each batch in one transaction with the log position it reaches. What to
/// fetch is decided from names alone (`PullPlan`); a new device starts from the newest
/// snapshot, and so does one whose next segment was pruned after a snapshot covering it.
final class PullEngine {
    private let context: SyncContext
    private var store: Store { context.store }
    private let snapshots: Snapshots
    private let intake: BlobIntake
    /// What this pull did.
    private(set) var report = SyncReport()
    private let progress: ((String) -> Void)?
    /// A restore's last step, which returns how many attachments it took in; with it, merges
    /// do not wait for downloads (`RestoreSteps.finish`).
    private let finish: ((BlobPrefetcher?) throws -> Int)?
    private var downloads: Downloads?
    /// Consecutive segments of one device read and not yet merged, and their changes.
    private var batch: [(segment: LogSegment, hash: String)] = []
    private var batchChanges = 0
    /// Changes merged in one transaction: a restore's own limit, or a sync's.
    private var changesPerMerge: Int { finish == nil ? context.options.changesPerMerge : context.options.changesPerRestoreMerge }

    /// A pull of every device's new segments. With `finish` (a restore), a segment is merged
    /// without waiting for the attachments it names to download: they download meanwhile, and
    /// `finish` runs once every segment is merged, with those downloads still under way, to
    /// take them in. Nothing may read a restoring store as whole, and a resumed restore finds
    /// what it lacks in the store (`Store.lackingRemoteBlobs`): the attachments a segment
    /// carried are in before it merges.
    init(_ context: SyncContext, progress: ((String) -> Void)?, finish: ((BlobPrefetcher?) throws -> Int)? = nil) {
        self.context = context
        snapshots = Snapshots(context: context)
        intake = BlobIntake(context: context)
        self.progress = progress
        self.finish = finish
    }

    /// Pulls; returns the heads read. Packs read during the key derivation serve the first
    /// pull alone (a watch's syncer lives on: it must not hold them).
    func run() throws -> [String: [Int]] {
        defer {
            context.earlyPacks?.release()
            context.earlyPacks = nil
        }
        return try run(usedSnapshot: false)
    }

    /// `usedSnapshot`: a snapshot was merged already, so a missing segment is an error, not a
    /// reason to start from one.
    private func run(usedSnapshot: Bool) throws -> [String: [Int]] {
        let location = context.backend.location
        // Listed while the key derivation ran, if it ran: taken by the first pull alone.
        let listed = usedSnapshot ? EarlySegments.Listing() : context.earlySegments?.takeListing() ?? EarlySegments.Listing()
        // What the server lost of this device's own log goes back first (nothing is taken from
        // the server for it): a listing without this device's head is a server that forgot.
        let repair = try RepairEngine.runIfNeeded(context, heads: try Heads(context: context).read(listed: listed.heads), progress: progress)
        report.objectsRepaired += repair.repaired
        let heads = repair.heads
        var logs = try store.syncLogs()
        var plan = try PullPlan(heads: heads, logs: logs, mayStartFromSnapshot: !usedSnapshot, location: location)
        // A new device starts from the newest snapshot instead of replaying every segment.
        if plan.startsFromSnapshot, let snapshot = try snapshots.newest(listed: listed.snapshots) {
            report.add(try snapshots.adopt(snapshot, progress: progress))
            logs = try store.syncLogs()
            plan = try PullPlan(heads: heads, logs: logs, mayStartFromSnapshot: false, location: location, afterSnapshot: true)
        }
        downloads = Downloads.start(context, ahead: plan.ranges)
        defer { downloads?.stop() }
        let pulling = PullProgress(segments: plan.segmentCount, meter: context.downloadMeter, report: progress)
        context.pullProgress = pulling
        defer { context.pullProgress = nil }
        let reader = SegmentReader(context: context)
        for (index, range) in plan.ranges.enumerated() {
            let device = range.device
            let lastRange = index == plan.ranges.count - 1
            var (seq, hash) = logs[device] ?? (0, "")
            while seq < range.seqs.upperBound {
                let path = LogSegment.path(device: device, seq: seq + 1)
                pulling.show(report)
                let segment: LogSegment, sealedHash: String
                do {
                    try context.stopIfCancelled()
                    (segment, sealedHash) = try reader.fetch(path: path, device: device, seq: seq + 1, previous: hash, readAhead: downloads)
                } catch let error as SyncError where error.kind == .missing && !usedSnapshot {
                    // Pruned after a snapshot that covers it: start from the snapshot, then go on.
                    try mergeBatch()
                    guard let snapshot = try snapshots.newest() else { throw error }
                    downloads?.stop()
                    report.add(try snapshots.adopt(snapshot, progress: progress))
                    return try run(usedSnapshot: true)
                } catch {
                    try mergeBatch()  // what was read before stays merged
                    throw error
                }
                batch.append((segment, sealedHash))
                batchChanges += segment.changes.count
                (seq, hash) = (segment.seq, sealedHash)
                if batchChanges >= changesPerMerge { try mergeBatch(last: lastRange && seq >= range.seqs.upperBound) }
            }
            try mergeBatch(last: lastRange)
        }
        if let finish { report.blobsDownloaded += try finish(downloads?.prefetcher) }
        return heads
    }

    /// Takes in the attachments the batch's segments name (all of them, or in a restore
    /// those they carry), then merges them in one transaction. `last`: no segment follows.
    private func mergeBatch(last: Bool = false) throws {
        let segments = batch.map(\.segment)
        guard let device = segments.first?.device else { return }
        let waiting = finish == nil
        report.blobsDownloaded += try intake.fetchBlobs(of: segments, using: downloads?.prefetcher, waiting: waiting, last: last)
        context.checkpoint(.pullBeforeMerge)
        let logChanges = batch.map {
            LogChanges(changes: $0.segment.changes, seq: $0.segment.seq, hash: $0.hash, name: LogSegment.path(device: device, seq: $0.segment.seq))
        }
        let merged = try context.naming(logChanges[0].name) {
            try store.merge(logChanges, log: device) {
                if waiting {
                    try intake.checkAttachments(after: segments.flatMap(\.changes)) { local in segments.lazy.compactMap { $0.remote(local) }.first }
                }
                context.checkpoint(.mergeBeforeCommit)
            }
        }
        report.fieldsMerged += device == store.deviceID ? 0 : merged.applied
        report.conflicts += merged.conflicts
        report.segmentsPulled += segments.count
        batch.removeAll()
        batchChanges = 0
        context.checkpoint(.pullAfterMerge)
    }
}
