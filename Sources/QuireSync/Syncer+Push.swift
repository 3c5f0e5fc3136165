import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// Push: attachments first (in packs), then segments of whole records, then the head; the
/// outbox is cleared only after that.
extension Syncer {
    func push(heads: [String: [Int]], into report: inout SyncReport, progress: ((String) -> Void)? = nil) throws {
        // A segment the server refused as too large: its limit is learned (halved each time,
        // down to the smallest Quire fits) and the push made again in smaller segments. Nothing
        // was confirmed, and the segments already sent are rewritten under the same names.
        while true {
            do {
                return try pushOnce(heads: heads, into: &report, progress: progress)
            } catch let refused as PackUploader.TooLarge {
                _ = try learnLimit(from: refused)
            }
        }
    }

    func pushOnce(heads: [String: [Int]], into report: inout SyncReport, progress: ((String) -> Void)?) throws {
        guard try store.hasPendingChanges() else { return }
        try moveRepositoryForward()
        // Read record by record, a segment at a time: memory stays that of one segment
        // however much is pending (a first sync of a whole journal).
        let pending = try store.pendingRecords()
        let me = store.deviceID
        // 1. Attachments, packed, over the upload connections. Their packs are named before
        //    they upload, so the segments naming them are made (and sent over this sync's
        //    own connection) meanwhile; the head that makes those segments part of the log
        //    waits for every pack (no segment anyone reads names a blob the server lacks).
        var blobMap: [String: RemoteBlob] = [:]
        let transfer = progress.map { TransferProgress("uploading", report: $0) }
        let connections = uploadConnections()
        var packs = try startUpload(try store.pendingBlobs(pending.records).sorted(), into: &blobMap, over: connections,
                                    report: &report, progress: transfer)
        defer { packs?.uploader.abandon() }
        if let underway = packs, connections.count < 2 {
            // One connection: the packs have it until they are up.
            try finishUpload(underway, report: &report)
            packs = nil
        }
        // 2. Segments, each chained to the previous, each of whole records.
        var (seq, hash) = try store.syncLog(me) ?? (0, "")
        var next = 0
        var pushedRecords = Set<String>()  // the records the pushed changes belong to
        let budget = SegmentBudget(limit: try store.remoteSettings()?.maxObjectSize)
        // Segments go up over the upload connections while the next ones are made: their
        // hashes chain locally, and none is part of the log before the head names it, so the
        // order they arrive in is free.
        let sender = SegmentSender(self, connections: connections, holding: packs != nil, progress: progress)
        defer { sender.abandon() }
        // Waits for the packs, then lets the segments still to go use their connections.
        func landPacks() throws {
            guard let underway = packs else { return }
            try finishUpload(underway, report: &report)
            packs = nil
            try sender.release()
        }
        while next < pending.records.count {
            try stopIfCancelled()
            if let packs { collectUpload(packs, report: &report) }
            var chunk: [SyncChange] = []
            var referenced: [String: RemoteBlob] = [:]
            var fill = SegmentFill(budget: budget, maxChanges: changesPerSegment)
            while next < pending.records.count && fill.hasRoom {
                let record = pending.records[next]
                let changes = try store.changes(of: record)
                chunk += changes
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
                    try upload([blob], into: &blobMap, report: &report, progress: transfer)
                }
                // Named only: its bytes travel once, in their pack (segments of Quires before
                // this one also carried small ones inline; those are still read).
                referenced[blob] = blobMap[blob]
            }
            guard !chunk.isEmpty else { continue }
            var segment = LogSegment(device: me, seq: seq + 1, previous: hash, changes: chunk, blobs: referenced.mapValues(\.id))
            segment.packed = Dictionary(referenced.values.compactMap { b in b.location.map { (b.id, $0) } }, uniquingKeysWith: { a, _ in a })
            let ready = try seal(segment)
            try sender.send(ready)
            (seq, hash) = (segment.seq, ready.hash)
            report.segmentsPushed += 1
            report.changesPushed += chunk.count
            for change in chunk { pushedRecords.insert(change.recordID) }
        }
        report.recordsPushed += pushedRecords.count
        checkpoint(.segmentsMade)
        try landPacks()
        try sender.drain()
        // 3. The head, then the old heads go. Only a published head makes segments part of the
        //    log (a crash before it leaves segments nobody reads; the next push overwrites them).
        try publishHead(seq: seq, hash: hash, previous: heads[me] ?? [], merged: try store.syncLogs())
        try store.setSyncLog(me, seq: seq, hash: hash)
        try store.confirmRemoteBlobs(Array(blobMap.keys))
        checkpoint(.headPublished)
        // 4. Only now is the push confirmed.
        try store.markPushed(upTo: pending.watermark)
    }

    /// A segment sealed for its path, with the hash the next segment chains to.
    struct SealedSegment {
        var path: String
        var seq: Int
        var data: Data
        var hash: String
    }

    func seal(_ segment: LogSegment) throws -> SealedSegment {
        let path = LogSegment.path(device: segment.device, seq: segment.seq)
        let json = segment.encoded()
        let body = writesCompressed ? WireCompression.compress(json, overhead: RecordBox.overhead) : Padding.padJSON(json, overhead: RecordBox.overhead)
        let data = try repository.box.seal(body, path: path)
        return SealedSegment(path: path, seq: segment.seq, data: data, hash: Digest.hex(data))
    }

    /// Seals and uploads `segment` over this sync's own connection; returns the hash the next
    /// segment chains to.
    func publish(_ segment: LogSegment, progress: ((String) -> Void)?) throws -> String {
        let ready = try seal(segment)
        let sender = SegmentSender(self, connections: [backend], holding: false, progress: progress)
        try sender.send(ready)
        try sender.drain()
        return ready.hash
    }

    /// The head names this device's newest segment; inside (sealed) it also says how far this
    /// device has merged every other log, which tells `prune` what it may delete.
    func publishHead(seq: Int, hash: String, previous: [Int], merged: [String: (seq: Int, hash: String)]) throws {
        let head = Head(device: store.deviceID, seq: seq)
        let path = Self.headsFolder + "/" + head.name
        let positions = merged.mapValues { JSONValue.number(Double($0.seq)) }
        let body = WireFormat.head.encode(["device": .string(head.device), "seq": .number(Double(seq)), "hash": .string(hash),
                                           "merged": .object(positions)])
        // Heads are read by name; the content only helps `prune`, which ignores a head it
        // cannot open. So a plain PUT will do.
        try backend.putData(path, try repository.box.seal(Padding.padJSON(body, overhead: RecordBox.overhead), path: path))
        // Old heads go a few at a time (the newest counts), to keep a sync at 4 requests.
        let stale = previous.filter { $0 < seq }
        if stale.count >= 3 {
            for old in stale { try? backend.delete(Self.headsFolder + "/" + Head(device: store.deviceID, seq: old).name) }
        }
        checkpoint(.headsCleaned)
    }
}
