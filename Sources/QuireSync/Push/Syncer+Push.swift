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
        let sender = SegmentSender(self, connections: [backend], progress: progress)
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
        try backend.putData(path, try repository.box.seal(Padding.padHead(body, overhead: RecordBox.overhead), path: path))
        // Old heads go a few at a time (the newest counts), to keep a sync at 4 requests.
        let stale = previous.filter { $0 < seq }
        if stale.count >= 3 {
            for old in stale { try? backend.delete(Self.headsFolder + "/" + Head(device: store.deviceID, seq: old).name) }
        }
        checkpoint(.headsCleaned)
    }
}
