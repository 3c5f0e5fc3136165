import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// A snapshot, `snapshots/<device>/<number>`: the whole synced state of one device after it
/// had merged every log up to `positions`, so new devices and restores need not replay years
/// of segments, and older segments can be pruned. Written as JSON lines and encrypted as a
/// secretstream like a blob (bound to its path), so it streams in constant memory both ways.
/// The number is how many segments the state has merged in all (the sum of its positions):
/// positions only grow, so one device's number names one state — a snapshot written again
/// after other devices' segments merged gets a new name, never the stale one of an earlier
/// prune — and a larger number covers more.
struct Snapshot {
    var device: String
    var seq: Int
    /// device → (last segment merged, its hash)
    var positions: [String: (seq: Int, hash: String)]

    /// The name number of a state that merged each log up to `positions`.
    static func number(_ positions: [String: (seq: Int, hash: String)]) -> Int { positions.values.reduce(0) { $0 + $1.seq } }

    static let folder = "snapshots"
    static func path(device: String, seq: Int) -> String { "\(folder)/\(device)/" + String(format: "%012d", seq) }
    static func streamID(_ path: String) -> String { "snapshot:" + path }

    /// The log positions of a snapshot's header (`"positions": {device: [seq, hash]}`); nil
    /// when they are missing or malformed.
    static func positions(in header: [String: JSONValue]) -> [String: (seq: Int, hash: String)]? {
        guard let members = header["positions"]?.object else { return nil }
        var positions: [String: (seq: Int, hash: String)] = [:]
        for (device, value) in members {
            guard let pair = value.array, pair.count == 2, let seq = pair[0].integer, seq >= 0, let hash = pair[1].string else { return nil }
            positions[device] = (seq, hash)
        }
        return positions
    }

    /// Every snapshot on the server, as (device, seq), newest seq last per device.
    static func list(_ backend: Backend) throws -> [(device: String, seq: Int)] {
        let devices: [RemoteEntry]
        do {
            devices = try backend.list(folder)
        } catch let error as RemoteError where error.kind == .notFound {
            return []
        }
        var found: [(device: String, seq: Int)] = []
        for device in devices where device.isFolder {
            for entry in (try? backend.list(folder + "/" + device.name)) ?? [] {
                if let seq = Int(entry.name), seq > 0 { found.append((device.name, seq)) }
            }
        }
        return found
    }
}

/// Writing, finding, reading and merging snapshots for a sync's engines (prune writes them,
/// a new device's pull adopts the newest, verify reads its positions).
struct Snapshots {
    let context: SyncContext
    var store: Store { context.store }

    /// Writes a snapshot of this store's state: plaintext JSON lines to a private temporary
    /// file in the store, then encrypted while uploading (create-only).
    @discardableResult
    func write() throws -> String {
        let me = store.deviceID
        let logs = try store.syncLogs()
        guard (logs[me]?.seq ?? 0) > 0 else { throw SyncError(.missing, detail: "nothing pushed yet: sync first, then snapshot") }
        let seq = Snapshot.number(logs)
        let path = Snapshot.path(device: me, seq: seq)
        let temp = try store.blobs.temporaryPath()
        defer { unlink(temp) }
        guard FileManager.default.createFile(atPath: temp, contents: nil, attributes: [.posixPermissions: 0o600]),
              let out = FileHandle(forWritingAtPath: temp) else {
            throw StoreError.file(store.folder, "cannot write a snapshot here")
        }
        var buffer = Data()
        func line(_ value: JSONValue) throws {
            buffer.append(Data(JSONWriter.value(value).utf8))
            buffer.append(0x0A)
            if buffer.count > 1 << 20 { try out.write(contentsOf: buffer); buffer.removeAll(keepingCapacity: true) }
        }
        let positions = logs.mapValues { JSONValue.array([.number(Double($0.seq)), .string($0.hash)]) }
        buffer.append(WireFormat.snapshot.encode(["device": .string(me), "seq": .number(Double(seq)), "positions": .object(positions)]))
        buffer.append(0x0A)
        // Each attachment's ids and, for a packed one, its location ("p"). Its bytes stay in
        // their pack alone (snapshots before this Quire carried small ones as "d", still read);
        // a restore reads small ones a stretch of a pack at a time (`BlobPrefetcher`).
        for (local, remote) in try store.remoteBlobMap(confirmedOnly: true, neededOnly: true).sorted(by: { $0.key < $1.key }) {
            var members: [String: JSONValue] = ["b": .array([.string(local), .string(remote)])]
            if let location = BlobLocation(text: try store.remoteBlobRecord(local)?.location) { members["p"] = location.json }
            try line(.object(members))
        }
        try store.forEachSyncedField { try line(.object(["c": ChangeRow.encode($0)])) }
        try out.write(contentsOf: buffer)
        // Blank lines (readers skip them) pad the snapshot to its bucket (`Padding`).
        let written = Int64(try out.offset())
        try out.write(contentsOf: Data(repeating: 0x0A, count: Int(Padding.plaintextPadding(for: written))))
        try out.close()
        let source = try EncryptingSource(path: temp, keys: context.repository.keys, blobID: Snapshot.streamID(path))
        do {
            try context.backend.publish(path, from: source)
        } catch let error as RemoteError where error.kind == .exists {
            // A snapshot at this position exists (an earlier run): it holds this state.
        }
        return path
    }
}
