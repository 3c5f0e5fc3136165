import Foundation
import QuireStore

/// One pull: new segments of every device, in order, authenticated and chained, their
/// attachments taken in (in the background when there are worker connections), merged a
/// few at a time, each batch in one transaction with the log position it reaches. What to
/// fetch is decided from names alone (`PullPlan`); a new device starts from the newest
/// snapshot, and so does one whose next segment was pruned after a snapshot covering it.
final class PullEngine {
    private unowned let syncer: Syncer
    private var store: Store { syncer.store }
    /// What this pull did (with what the caller's report held before it).
    private(set) var report: SyncReport
    private let progress: ((String) -> Void)?
    /// A restore's last step (`Syncer.pull`); with it, merges do not wait for downloads.
    private let finish: ((BlobPrefetcher?, inout SyncReport) throws -> Void)?
    private var downloads: Syncer.Downloads?
    /// Consecutive segments of one device read and not yet merged, and their changes.
    private var batch: [(segment: LogSegment, hash: String)] = []
    private var batchChanges = 0

    init(_ syncer: Syncer, report: SyncReport, progress: ((String) -> Void)?,
         finish: ((BlobPrefetcher?, inout SyncReport) throws -> Void)?) {
        self.syncer = syncer
        self.report = report
        self.progress = progress
        self.finish = finish
    }

    /// Pulls; returns the heads read. `usedSnapshot`: a snapshot was merged already, so a
    /// missing segment is an error, not a reason to start from one.
    func run(usedSnapshot: Bool = false) throws -> [String: [Int]] {
        let location = syncer.backend.location
        // What the server lost of this device's own log goes back first (nothing is taken from
        // the server for it): a listing without this device's head is a server that forgot.
        let heads = try syncer.repairIfNeeded(heads: try syncer.readHeads(), into: &report, progress: progress)
        var logs = try store.syncLogs()
        var plan = try PullPlan(heads: heads, logs: logs, mayStartFromSnapshot: !usedSnapshot, location: location)
        // A new device starts from the newest snapshot instead of replaying every segment.
        if plan.startsFromSnapshot, let snapshot = try syncer.newestSnapshot() {
            try syncer.adoptSnapshot(snapshot, into: &report, progress: progress)
            logs = try store.syncLogs()
            plan = try PullPlan(heads: heads, logs: logs, mayStartFromSnapshot: false, location: location, afterSnapshot: true)
        }
        downloads = syncer.startDownloads(ahead: plan.ranges)
        defer { downloads?.stop() }
        let pulling = PullProgress(segments: plan.segmentCount, meter: syncer.downloadMeter, report: progress)
        syncer.pullProgress = pulling
        defer { syncer.pullProgress = nil }
        for range in plan.ranges {
            let device = range.device
            var (seq, hash) = logs[device] ?? (0, "")
            while seq < range.seqs.upperBound {
                let path = LogSegment.path(device: device, seq: seq + 1)
                pulling.show(report)
                let segment: LogSegment, sealedHash: String
                do {
                    try syncer.stopIfCancelled()
                    (segment, sealedHash) = try syncer.fetchSegment(path: path, device: device, seq: seq + 1, previous: hash, readAhead: downloads)
                } catch let error as SyncError where error.kind == .missing && !usedSnapshot {
                    // Pruned after a snapshot that covers it: start from the snapshot, then go on.
                    try mergeBatch()
                    guard let snapshot = try syncer.newestSnapshot() else { throw error }
                    downloads?.stop()
                    try syncer.adoptSnapshot(snapshot, into: &report, progress: progress)
                    return try run(usedSnapshot: true)
                } catch {
                    try mergeBatch()  // what was read before stays merged
                    throw error
                }
                batch.append((segment, sealedHash))
                batchChanges += segment.changes.count
                (seq, hash) = (segment.seq, sealedHash)
                if batchChanges >= syncer.changesPerMerge { try mergeBatch() }
            }
            try mergeBatch()
        }
        try finish?(downloads?.prefetcher, &report)
        return heads
    }

    /// Takes in the attachments the batch's segments name (all of them, or in a restore
    /// those they carry), then merges them in one transaction.
    private func mergeBatch() throws {
        let segments = batch.map(\.segment)
        guard let device = segments.first?.device else { return }
        let waiting = finish == nil
        try syncer.fetchBlobs(of: segments, using: downloads?.prefetcher, waiting: waiting, into: &report)
        syncer.checkpoint(.pullBeforeMerge)
        let logChanges = batch.map {
            LogChanges(changes: $0.segment.changes, seq: $0.segment.seq, hash: $0.hash, name: LogSegment.path(device: device, seq: $0.segment.seq))
        }
        let merged = try syncer.naming(logChanges[0].name) {
            try store.merge(logChanges, log: device) {
                if waiting {
                    try syncer.checkAttachments(after: segments.flatMap(\.changes)) { local in segments.lazy.compactMap { $0.remote(local) }.first }
                }
                syncer.checkpoint(.mergeBeforeCommit)
            }
        }
        report.fieldsMerged += device == store.deviceID ? 0 : merged.applied
        report.conflicts += merged.conflicts
        report.segmentsPulled += segments.count
        batch.removeAll()
        batchChanges = 0
        syncer.checkpoint(.pullAfterMerge)
    }
}
