import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// A segment sealed for its path, with the hash the next segment chains to.
struct SealedSegment {
    var path: String
    var seq: Int
    var data: Data
    var hash: String
}

/// Writes this device's log: seals a segment (with how far this store merged the others,
/// padded, compressed once the repository is at format 3) and, for a lone segment (a
/// repack's announcement), sends it and keeps its sealed bytes. Push sends its own many
/// segments through a `SegmentSender`.
struct LogWriter {
    let context: SyncContext

    /// Seals `segment` for its path, with how far this store merged the other logs (`merged`),
    /// padded to a bucket (`Padding.textStep` when it names no attachment).
    func seal(_ segment: LogSegment) throws -> SealedSegment {
        var segment = segment
        segment.merged = try context.store.syncLogs().filter { $0.key != segment.device }.mapValues { .number(Double($0.seq)) }
        let path = LogSegment.path(device: segment.device, seq: segment.seq)
        let json = segment.encoded()
        let floor = segment.blobs.isEmpty ? Padding.textStep : Padding.minimumStep
        let body = context.writesCompressed ? WireCompression.compress(json, overhead: RecordBox.overhead, floor: floor)
                                            : Padding.padJSON(json, overhead: RecordBox.overhead, floor: floor)
        let data = try context.repository.box.seal(body, path: path)
        return SealedSegment(path: path, seq: segment.seq, data: data, hash: Digest.hex(data))
    }

    /// Seals and uploads `segment` over this sync's own connection, and keeps its sealed
    /// bytes in the store; returns the hash the next segment chains to.
    func publish(_ segment: LogSegment, progress: ((String) -> Void)?) throws -> String {
        let ready = try seal(segment)
        let sender = SegmentSender(context, connections: [context.backend], progress: progress)
        try sender.send(ready)
        try sender.drain()
        try context.store.keepSentSegments([(ready.seq, ready.data)])
        return ready.hash
    }
}
