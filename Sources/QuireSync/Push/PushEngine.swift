import Foundation
import QuireRemote
import QuireStore

/// One push: attachments first (in packs), then segments of whole records, then the head;
/// the outbox is cleared only after that. Its state is its own: what is pending, where each
/// attachment will live, the packs under way, the segments being sent, the log's tip.
///
/// 1. Attachments, packed, over the upload connections. Their packs are named before they
///    upload, so the segments naming them are made (and sent over this sync's own
///    connection) meanwhile; the head that makes those segments part of the log waits for
///    every pack (no segment anyone reads names a blob the server lacks).
/// 2. Segments, each chained to the previous, each of whole records, read record by record:
///    memory stays that of one segment however much is pending (a first sync of a whole
///    journal). They go up while the next ones are made: their hashes chain locally, and
///    none is part of the log before the head names it, so the order they arrive in is free.
/// 3. The segments' sealed bytes are kept in the store (a server that loses them gets them
///    back), then the head, then the old heads go. Only a published head makes segments part of the log
///    (a crash before it leaves segments nobody reads; the next push overwrites them).
/// 4. Only then is the push confirmed.
final class PushEngine {
    private let context: SyncContext
    private var store: Store { context.store }
    private let uploads: BlobUploads
    /// What this push did.
    private(set) var report = SyncReport()
    private let transfer: TransferProgress?
    private let connections: [Backend]
    private let sender: SegmentSender
    private let pending: (records: PendingRecords, watermark: HLC)
    private let budget: SegmentBudget
    /// The next pending record to go into a segment.
    private var next = 0
    /// This device's log: its newest segment and that segment's hash.
    private var seq: Int, hash: String
    /// Where each attachment a segment names lives (or will, once its pack is stored).
    private var blobMap: [String: RemoteBlob] = [:]
    private var packs: PackUpload?
    /// Sealed segments not yet kept in the store (`Store.keepSentSegments`), kept a few MiB at
    /// a time and always before the head that publishes them.
    private var copies: [(seq: Int, data: Data)] = []

    /// Pushes what is pending, if anything is. A segment the server refused as too large: its
    /// limit is learned (halved each time, down to the smallest Quire fits) and the push made
    /// again in smaller segments. Nothing was confirmed, and the segments already sent are
    /// rewritten under the same names.
    static func push(_ context: SyncContext, heads: [String: [Int]], progress: ((String) -> Void)? = nil) throws -> SyncReport {
        let uploads = BlobUploads(context: context)
        while true {
            guard try context.store.hasPendingChanges() else { return SyncReport() }
            try uploads.moveRepositoryForward()
            let engine = try PushEngine(context, progress: progress)
            do {
                try engine.run(heads: heads)
                return engine.report
            } catch let refused as PackUploader.TooLarge {
                _ = try uploads.learnLimit(from: refused)
            }
        }
    }

    private init(_ context: SyncContext, progress: ((String) -> Void)?) throws {
        self.context = context
        uploads = BlobUploads(context: context)
        transfer = progress.map { TransferProgress("uploading", report: $0) }
        connections = context.uploadConnections()
        sender = SegmentSender(context, connections: connections, progress: progress)
        pending = try context.store.pendingRecords()
        budget = SegmentBudget(limit: try context.store.remoteSettings()?.maxObjectSize)
        (seq, hash) = try context.store.syncLog(context.store.deviceID) ?? (0, "")
    }

    private func run(heads: [String: [Int]]) throws {
        defer {
            sender.abandon()
            packs?.uploader.abandon()
        }
        try startAttachments()
        while next < pending.records.count {
            try context.stopIfCancelled()
            packs?.collect()
            try pushSegment()
        }
        context.checkpoint(.segmentsMade)
        try landPacks()
        try sender.drain()
        try keepCopies()
        let me = store.deviceID
        try Heads(context: context).publish(seq: seq, previous: heads[me] ?? [])
        try store.setSyncLog(me, seq: seq, hash: hash)
        try store.confirmRemoteBlobs(Array(blobMap.keys))
        context.checkpoint(.headPublished)
        try store.markPushed(upTo: pending.watermark)
    }

    /// Starts the packs of every pending attachment the server lacks; with one connection,
    /// waits for them (they have it until they are up).
    private func startAttachments() throws {
        (blobMap, packs) = try uploads.start(try store.pendingBlobs(pending.records).sorted(), known: blobMap, over: connections,
                                             progress: transfer)
        if connections.count < 2 { try landPacks() }
        if packs != nil { sender.hold() }
    }

    /// Makes the next segment, of whole records from `next` on, and sends it.
    private func pushSegment() throws {
        var chunk: [SyncChange] = []
        // Records with changes in this segment: each record's changes go in one segment whole.
        var records = 0
        var referenced: [String: RemoteBlob] = [:]
        var fill = SegmentFill(budget: budget, maxChanges: context.options.changesPerSegment)
        while next < pending.records.count && fill.hasRoom {
            let record = pending.records[next]
            let changes = try store.changes(of: record)
            chunk += changes
            if !changes.isEmpty { records += 1 }
            next += 1
            fill.add(changes)
            // The segment names the blob of every live attachment it carries, so a device
            // that lacks it (or let it go while the record was deleted) fetches it.
            guard record.kind == .media, !changes.isEmpty, let blob = try store.neededBlob(ofMedia: record.id) else { continue }
            // Named by a record written after the list was read: upload it now (over the
            // connections the segments use, once they are idle).
            if blobMap[blob] == nil {
                try landPacks()
                try sender.drain()
                let late = try uploads.upload([blob], known: blobMap, progress: transfer)
                blobMap = late.located
                report.blobsUploaded += late.uploaded
            }
            // Named only: its bytes travel once, in their pack (segments of Quires before
            // this one also carried small ones inline; those are still read).
            referenced[blob] = blobMap[blob]
        }
        guard !chunk.isEmpty else { return }
        var segment = LogSegment(device: store.deviceID, seq: seq + 1, previous: hash, changes: chunk, blobs: referenced.mapValues(\.id))
        segment.packed = Dictionary(referenced.values.compactMap { b in b.location.map { (b.id, $0) } }, uniquingKeysWith: { a, _ in a })
        let ready = try LogWriter(context: context).seal(segment)
        copies.append((ready.seq, ready.data))
        if copies.reduce(0, { $0 + $1.data.count }) >= 4 << 20 { try keepCopies() }
        try sender.send(ready)
        (seq, hash) = (segment.seq, ready.hash)
        report.segmentsPushed += 1
        report.changesPushed += chunk.count
        report.recordsPushed += records
    }

    /// Keeps the sealed segments made so far in the store, so this device can put them back
    /// should the server lose them.
    private func keepCopies() throws {
        try store.keepSentSegments(copies)
        copies.removeAll()
    }

    /// Waits for the packs, then lets the segments still to go use their connections.
    private func landPacks() throws {
        guard let underway = packs else { return }
        try underway.finish()
        report.blobsUploaded += underway.uploaded
        packs = nil
        try sender.release()
    }
}
