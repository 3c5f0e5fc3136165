import Foundation
import QuireStore

/// A change-log segment, `log/<device>/<seq>`: a batch of one device's field writes, sealed
/// with its path as associated data, naming the hash of the device's previous segment so a
/// server that drops, swaps or rolls back segments is caught.
struct LogSegment {
    var device: String
    var seq: Int
    /// Hash of the sealed previous segment of this device ("" for the first).
    var previous: String
    var changes: [SyncChange]
    /// Local blob id (SHA-256) → repository blob id, for every blob the changes reference.
    var blobs: [String: String]
    /// Local blob id → the plaintext of small attachments this segment newly names: a copy
    /// carried inline (the blob object stays the one the repository keeps, collects and
    /// verifies), so a device pulling the segment needs no request per small attachment.
    /// Segments without it (older ones, and readers that predate it) fetch every blob.
    var inline: [String: Data] = [:]
    /// Repository blob id → where it is packed (format 2), for every packed blob `blobs`
    /// names: the encrypted index of the attachments this segment needs. A blob without one
    /// is a blob object of its own (`blobs/<2 hex>/<id>`).
    var packed: [String: BlobLocation] = [:]
    /// How far the writer had merged every other device's log when it wrote this segment
    /// (device → segment number). A head is a name only, so a prune learns from each
    /// device's newest segment what that device still needs. Nil in segments of Quires
    /// before that (their heads held it): a prune that meets one deletes nothing.
    var merged: [String: JSONValue]?
    /// How many bytes of JSON the segment decoded to (0 for one made here): what holding it
    /// read ahead costs, whatever it took to download.
    var decodedBytes = 0

    static let folder = "log"

    static func path(device: String, seq: Int) -> String {
        "\(folder)/\(device)/" + String(format: "%012d", seq)
    }

    func encoded() -> Data {
        let rows = changes.map(ChangeRow.encode)
        var members: [String: JSONValue] = [
            "device": .string(device), "seq": .number(Double(seq)),
            "previous": .string(previous), "changes": .array(rows), "blobs": .object(blobs.mapValues { .string($0) }),
        ]
        if !inline.isEmpty { members["blobs_inline"] = .object(inline.mapValues { .string($0.base64EncodedString()) }) }
        if !packed.isEmpty { members["blobs_packed"] = .object(packed.mapValues(\.json)) }
        if let merged { members["merged"] = .object(merged) }
        // Format 2 carries locations with generations (a moved attachment); a segment without
        // one is written as format 1, which every Quire reads.
        return WireFormat.segment.encode(members, format: packed.values.contains { $0.generation > 0 } ? 2 : 1)
    }

    /// - Throws: `SyncError` naming `path` when the content is not a segment.
    static func decode(_ data: Data, path: String) throws -> LogSegment {
        func bad(_ why: String) -> SyncError { SyncError(.damaged, object: path, detail: "not a valid change-log segment (\(why))") }
        var decodedBytes = 0
        var changes: [SyncChange] = []
        let o = try WireFormat.segment.decode(data, path: path, decodedBytes: &decodedBytes, rowsOf: "changes", refusal: "a malformed change") { row in
            guard let change = ChangeRow.decode(row) else { return false }
            changes.append(change)
            return true
        }
        guard let device = o["device"]?.string, let seq = o["seq"]?.integer, seq > 0, let previous = o["previous"]?.string,
              o["changes"]?.array != nil, let blobs = o["blobs"]?.object else { throw bad("missing fields") }
        var map: [String: String] = [:]
        for (k, v) in blobs {
            guard let remote = v.string else { throw bad("a malformed blob entry") }
            map[k] = remote
        }
        var inline: [String: Data] = [:]
        for (k, v) in o["blobs_inline"]?.object ?? [:] {
            guard map[k] != nil, let text = v.string, let bytes = Data(base64Encoded: text) else { throw bad("a malformed inline attachment") }
            inline[k] = bytes
        }
        var packed: [String: BlobLocation] = [:]
        for (k, v) in o["blobs_packed"]?.object ?? [:] {
            guard BlobStore.isValidID(k), let location = BlobLocation(json: v) else { throw bad("a malformed attachment location") }
            packed[k] = location
        }
        var segment = LogSegment(device: device, seq: seq, previous: previous, changes: changes, blobs: map)
        segment.inline = inline
        segment.packed = packed
        segment.merged = o["merged"]?.object
        segment.decodedBytes = decodedBytes
        return segment
    }

    /// The repository blob of local blob `local`, with its location when it is packed.
    func remote(_ local: String) -> RemoteBlob? {
        blobs[local].map { RemoteBlob(id: $0, location: packed[$0]) }
    }

    /// The attachments to download (local id → the repository's blob): those the segment
    /// names and does not carry inline.
    var toDownload: [String: RemoteBlob] {
        var map: [String: RemoteBlob] = [:]
        for (local, remote) in blobs where inline[local] == nil { map[local] = RemoteBlob(id: remote, location: packed[remote]) }
        return map
    }
}

/// A head, `heads/<device>.<seq>`: its name tells every device's latest segment in one listing.
struct Head {
    var device: String
    var seq: Int

    var name: String { "\(device).\(seq)" }

    init(device: String, seq: Int) {
        self.device = device
        self.seq = seq
    }

    /// Parses a head name; nil for anything else (ignored, never trusted).
    init?(name: String) {
        guard let dot = name.lastIndex(of: "."), let seq = Int(name[name.index(after: dot)...]), seq > 0 else { return nil }
        device = String(name[..<dot])
        guard device.count == 36 else { return nil }
        self.seq = seq
    }
}
