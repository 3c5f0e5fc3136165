import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// Push's front and the steps it shares with prune and repack: sealing a segment, publishing
/// a head. The push itself is `PushEngine`.
extension Syncer {
    /// Pushes what is pending (`PushEngine`). A segment the server refused as too large: its
    /// limit is learned (halved each time, down to the smallest Quire fits) and the push made
    /// again in smaller segments. Nothing was confirmed, and the segments already sent are
    /// rewritten under the same names.
    func push(heads: [String: [Int]], into report: inout SyncReport, progress: ((String) -> Void)? = nil) throws {
        while true {
            guard try store.hasPendingChanges() else { return }
            try moveRepositoryForward()
            let engine = try PushEngine(self, report: report, progress: progress)
            defer { report = engine.report }
            do {
                return try engine.run(heads: heads)
            } catch let refused as PackUploader.TooLarge {
                _ = try learnLimit(from: refused)
            }
        }
    }

    /// A segment sealed for its path, with the hash the next segment chains to.
    struct SealedSegment {
        var path: String
        var seq: Int
        var data: Data
        var hash: String
    }

    /// Seals `segment` for its path, with how far this store merged the other logs (`merged`),
    /// padded to a bucket (`Padding.textStep` when it names no attachment).
    func seal(_ segment: LogSegment) throws -> SealedSegment {
        var segment = segment
        segment.merged = try store.syncLogs().filter { $0.key != segment.device }.mapValues { .number(Double($0.seq)) }
        let path = LogSegment.path(device: segment.device, seq: segment.seq)
        let json = segment.encoded()
        let floor = segment.blobs.isEmpty ? Padding.textStep : Padding.minimumStep
        let body = writesCompressed ? WireCompression.compress(json, overhead: RecordBox.overhead, floor: floor)
                                    : Padding.padJSON(json, overhead: RecordBox.overhead, floor: floor)
        let data = try repository.box.seal(body, path: path)
        return SealedSegment(path: path, seq: segment.seq, data: data, hash: Digest.hex(data))
    }

    /// Seals and uploads `segment` over this sync's own connection, and keeps its sealed
    /// bytes in the store; returns the hash the next segment chains to.
    func publish(_ segment: LogSegment, progress: ((String) -> Void)?) throws -> String {
        let ready = try seal(segment)
        let sender = SegmentSender(self, connections: [backend], progress: progress)
        try sender.send(ready)
        try sender.drain()
        try store.keepSentSegments([(ready.seq, ready.data)])
        return ready.hash
    }

    /// The head names this device's newest segment, and its name is all it says: an empty
    /// object, one request of header bytes. (Quires before this sealed the segment's hash and
    /// how far the device merged the other logs into it; the positions now travel in every
    /// segment, where a prune reads them, and a pull never read the hash: each segment is
    /// authenticated, and chained by the next.)
    func publishHead(seq: Int, previous: [Int]) throws {
        let path = Self.headsFolder + "/" + Head(device: store.deviceID, seq: seq).name
        // Read by name alone: a plain PUT will do.
        try backend.putData(path, Data())
        // Old heads go a few at a time (the newest counts), to keep a sync after an edit at 3 requests.
        let stale = previous.filter { $0 < seq }
        if stale.count >= 3 {
            for old in stale { try? backend.delete(Self.headsFolder + "/" + Head(device: store.deviceID, seq: old).name) }
        }
        checkpoint(.headsCleaned)
    }
}
