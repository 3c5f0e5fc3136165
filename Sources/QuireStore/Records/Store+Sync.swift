import Foundation

/// Local changes waiting to be pushed, read in one consistent snapshot.
/// A record with local writes not pushed yet.
public struct PendingRecord: Equatable, Sendable {
    public var kind: RecordKind
    public var id: String
}

public struct PendingChanges: Sendable {
    public var changes: [SyncChange]
    /// Every outbox record changed at or before this clock is covered by `changes`.
    public var watermark: HLC
    /// Local blob ids (SHA-256) the changes reference.
    public var blobs: Set<String>
}

extension Store {
    // MARK: - Push side

    /// True when some local change has not been pushed.
    public func hasPendingChanges() throws -> Bool {
        try database.cached("SELECT 1 FROM outbox LIMIT 1").first { _ in true } != nil
    }

    public func pendingCount() throws -> Int {
        Int(try database.cached("SELECT count(*) FROM outbox").first { $0.int(0) } ?? 0)
    }

    /// The local writes not pushed yet, with their current values.
    func pendingChanges() throws -> PendingChanges {
        try database.transaction {
            let pending = try pendingRecords()
            var changes: [SyncChange] = []
            for record in pending.records { changes += try self.changes(of: record) }
            let blobs = Set(changes.compactMap(\.namedBlob))
            return PendingChanges(changes: changes, watermark: pending.watermark, blobs: blobs)
        }
    }

    /// The records with writes not pushed yet, in push order (kind, then id), and the newest
    /// outbox clock among them: every write at or before it is covered by these records.
    public func pendingRecords() throws -> (records: [PendingRecord], watermark: HLC) {
        let rows = try database.prepare("SELECT record, record_id, hlc FROM outbox ORDER BY record, record_id")
            .rows { (RecordKind(rawValue: $0.text(0)), $0.text(1), HLC(rawValue: $0.int(2))) }
        let records = rows.compactMap { row in row.0.map { PendingRecord(kind: $0, id: row.1) } }
        return (records, rows.map(\.2).max() ?? .zero)
    }

    /// The attachments (local blob ids) that pending media records need (those of deleted
    /// records, or of deleted entries, are not uploaded).
    public func pendingBlobs(_ records: [PendingRecord]) throws -> Set<String> {
        var blobs = Set<String>()
        for record in records where record.kind == .media {
            if let blob = try neededBlob(ofMedia: record.id) { blobs.insert(blob) }
        }
        return blobs
    }

    /// This device's writes to `record`, each with the field's current value and clock, by field.
    public func changes(of record: PendingRecord) throws -> [SyncChange] {
        if record.kind == .revision { return try revisionChange(record.id).map { [$0] } ?? [] }
        let values = try fieldValues(record.kind, record.id)
        var changes: [SyncChange] = []
        try database.cached("""
            SELECT c.field, c.hlc, d.id, c.prev_hlc, coalesce(p.id, '') FROM field_clocks c
            JOIN devices d ON d.num = c.device LEFT JOIN devices p ON p.num = c.prev_device
            WHERE c.record = ? AND c.record_id = ? AND c.device = ? ORDER BY c.field
            """).forEach([.text(record.kind.rawValue), .text(record.id), .integer(deviceNumber)]) { row in
            let field = row.text(0)
            let value = value(of: field, kind: record.kind, in: values)
            changes.append(SyncChange(record: record.kind, recordID: record.id, field: field, value: value, hlc: HLC(rawValue: row.int(1)),
                                      device: row.text(2), previousHLC: HLC(rawValue: row.int(3)), previousDevice: row.text(4)))
        }
        return changes
    }

    /// Calls `body` with every field of every record as a change carrying its clock: the
    /// whole synced state, for snapshots. Streams; never holds the journal in memory.
    public func forEachSyncedField(_ body: (SyncChange) throws -> Void) throws {
        let statement = try database.prepare("""
            SELECT c.record, c.record_id, c.field, c.hlc, d.id, c.prev_hlc, coalesce(p.id, '') FROM field_clocks c
            JOIN devices d ON d.num = c.device LEFT JOIN devices p ON p.num = c.prev_device
            ORDER BY c.record, c.record_id, c.field
            """)
        var current: (RecordKind, String)?
        var values: [String: JSONValue] = [:]
        try statement.forEach { row in
            guard let kind = RecordKind(rawValue: row.text(0)) else { return }
            let id = row.text(1)
            if current?.0 != kind || current?.1 != id {
                current = (kind, id)
                values = try fieldValues(kind, id)
            }
            let field = row.text(2)
            let value = value(of: field, kind: kind, in: values)
            try body(SyncChange(record: kind, recordID: id, field: field, value: value, hlc: HLC(rawValue: row.int(3)),
                                device: row.text(4), previousHLC: HLC(rawValue: row.int(5)), previousDevice: row.text(6)))
        }
        // Kept revisions travel in snapshots too.
        let revisions = try database.prepare("""
            SELECT r.record, r.record_id, r.field, r.hlc, d.id, r.value FROM revisions r JOIN devices d ON d.num = r.device
            ORDER BY r.record, r.record_id, r.field, r.hlc, d.id
            """)
        try revisions.forEach { row in
            let key = RevisionKey(record: row.text(0), recordID: row.text(1), field: row.text(2), hlc: HLC(rawValue: row.int(3)), device: row.text(4))
            try body(SyncChange(record: .revision, recordID: key.text, field: "value", value: .string(row.text(5)), hlc: key.hlc, device: key.device))
        }
    }

    /// Local blob id → repository blob id for every blob known to the repository (only those a
    /// published segment names, with `confirmedOnly`; only those the journal needs, with
    /// `neededOnly`).
    public func remoteBlobMap(confirmedOnly: Bool = false, neededOnly: Bool = false) throws -> [String: String] {
        var conditions: [String] = []
        if confirmedOnly { conditions.append("r.confirmed = 1") }
        if neededOnly { conditions.append("EXISTS (SELECT 1 FROM \(Self.liveMedia) AND m.blob_id = r.blob_id)") }
        var map: [String: String] = [:]
        try database.prepare("SELECT r.blob_id, r.remote_id FROM remote_blobs r"
                             + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")))
            .forEach { map[$0.text(0)] = $0.text(1) }
        return map
    }

    /// A kept revision as a change, for pushing and snapshots.
    func revisionChange(_ id: String) throws -> SyncChange? {
        guard let key = RevisionKey(id) else { return nil }
        return try database.cached("""
            SELECT r.value FROM revisions r JOIN devices d ON d.num = r.device
            WHERE r.record = ? AND r.record_id = ? AND r.field = ? AND r.hlc = ? AND d.id = ?
            """).first([.text(key.record), .text(key.recordID), .text(key.field), .integer(key.hlc.rawValue), .text(key.device)]) {
            SyncChange(record: .revision, recordID: id, field: "value", value: .string($0.text(0)), hlc: key.hlc, device: key.device)
        }
    }

    /// Forgets outbox records whose changes (up to `watermark`) the server confirmed.
    public func markPushed(upTo watermark: HLC) throws {
        try database.transaction {
            try database.cached("DELETE FROM outbox WHERE hlc <= ?").run([.integer(watermark.rawValue)])
        }
    }

    /// Every field value of one record, as synced (each tag as `tag:<name>`).
    func fieldValues(_ kind: RecordKind, _ id: String) throws -> [String: JSONValue] {
        guard let schema = RecordSchema.of(kind),
              var values = try database.cached(schema.selectSQL).first([.text(id)], { schema.values(of: $0) }) else { return [:] }
        if kind == .entry {
            try database.cached("SELECT tag FROM entry_tags WHERE entry_id = ?").forEach([.text(id)]) {
                values[RecordSchema.tagPrefix + $0.text(0)] = .bool(true)
            }
        }
        return values
    }

    /// A field's value in `values`, or what a field the record never wrote holds.
    private func value(of field: String, kind: RecordKind, in values: [String: JSONValue]) -> JSONValue {
        values[field] ?? RecordSchema.of(kind)?.field(field)?.type.absentValue ?? .null
    }

    // MARK: - Pull side

    /// How far this store merged device `device`'s log: (last segment, its hash).
    public func syncLog(_ device: String) throws -> (seq: Int, hash: String)? {
        try database.cached("SELECT seq, hash FROM sync_logs WHERE device = ?").first([.text(device)]) { (Int($0.int(0)), $0.text(1)) }
    }

    /// Every device log this store has merged or pushed.
    public func syncLogs() throws -> [String: (seq: Int, hash: String)] {
        var logs: [String: (seq: Int, hash: String)] = [:]
        try database.prepare("SELECT device, seq, hash FROM sync_logs").forEach { logs[$0.text(0)] = (Int($0.int(1)), $0.text(2)) }
        return logs
    }

    public func setSyncLog(_ device: String, seq: Int, hash: String) throws {
        try database.transaction { try writeSyncLog(device, seq: seq, hash: hash) }
    }

    func writeSyncLog(_ device: String, seq: Int, hash: String) throws {
        try database.cached("INSERT INTO sync_logs (device, seq, hash) VALUES (?, ?, ?) ON CONFLICT(device) DO UPDATE SET seq = excluded.seq, hash = excluded.hash")
            .run([.text(device), .integer(Int64(seq)), .text(hash)])
    }

    /// Marks blobs as named by a published segment.
    public func confirmRemoteBlobs(_ blobIDs: [String]) throws {
        guard !blobIDs.isEmpty else { return }
        try database.transaction {
            for id in blobIDs { try database.cached("UPDATE remote_blobs SET confirmed = 1 WHERE blob_id = ?").run([.text(id)]) }
        }
    }

    /// Moves a downloaded file into `blobs/` if its SHA-256 is `expected`.
    /// - Throws: `.invalid` when the bytes are not what the change log promised.
    func adoptBlob(fileAt path: String, expected: String) throws {
        let added = try blobs.adopt(fileAt: path)
        guard added.id == expected else {
            if added.isNew { blobs.remove(added.id) }
            throw StoreError(.invalid, path: path, detail: "attachment content does not match its id \(expected.prefix(12))")
        }
        try database.transaction {
            try recordBlob(added)
        }
    }

    /// Takes downloaded attachments into the store in one go: each file (already written and
    /// fsynced, its bytes authenticated as `id`) is renamed into `blobs/`, every folder that
    /// gained a name is flushed once, and then one transaction records them all with their
    /// repository ids. One at a time this cost a folder fsync and two commits per attachment.
    /// With `flushed` false the files' data is flushed first, all at once.
    public func adoptDownloadedBlobs(_ items: [DownloadedBlob], flushed: Bool = true) throws {
        guard !items.isEmpty else { return }
        if !flushed { try FileIO.syncFilesystem(of: blobs.root) }
        var added: [(BlobStore.Added, String)] = []
        var folders = Set<String>()
        for item in items {
            guard BlobStore.isValidID(item.id) else { throw StoreError(.invalid, path: item.path, detail: "not a blob id") }
            let blob = try blobs.adopt(fileAt: item.path, sha256: item.id, syncFolder: false)
            if blob.isNew { folders.insert(blobs.folder(of: blob.id)) }
            added.append((blob, item.remoteID))
        }
        for folder in folders.sorted() { FileIO.syncFolder(folder) }
        if !folders.isEmpty { FileIO.syncFolder(blobs.root) }
        try database.transaction {
            for (blob, remote) in added {
                try recordBlob(blob)
                try database.cached("""
                    INSERT INTO remote_blobs (blob_id, remote_id, confirmed) VALUES (?, ?, 1)
                    ON CONFLICT(blob_id) DO UPDATE SET remote_id = excluded.remote_id, confirmed = 1
                    """).run([.text(blob.id), .text(remote)])
            }
        }
    }

    public func hasBlob(_ id: String) -> Bool { BlobStore.isValidID(id) && blobs.contains(id) }

    /// Merges changes from device log `device` up to segment `seq` (hash `hash`), in one
    /// transaction together with the new log position: all of it or none.
    /// The merge is a join — commutative, associative, idempotent — so order, duplicates and
    /// replays never change the result.
    /// - Returns: how many fields changed here and how many conflicts were kept.
    @discardableResult
    public func merge(_ changes: [SyncChange], log device: String, seq: Int, hash: String,
                      beforeCommit: () throws -> Void = {}) throws -> MergeResult {
        try merge(changes) {
            try writeSyncLog(device, seq: seq, hash: hash)
            try beforeCommit()
        }
    }

    /// Merges without recording a log position (snapshots, tests). `beforeCommit` may still
    /// refuse the result by throwing (it runs inside the transaction).
    @discardableResult
    public func merge(_ changes: [SyncChange], beforeCommit: () throws -> Void = {}) throws -> MergeResult {
        try write { writer in
            let result = try writer.merge(changes)
            try beforeCommit()
            return result
        }
    }
}

public struct MergeResult: Equatable, Sendable {
    public var applied = 0
    public var conflicts = 0
    public init() {}
}

/// An attachment downloaded into a temporary file inside the store: its SHA-256 (`id`, as
/// the change log that names it says, its bytes authenticated) and its repository id.
public struct DownloadedBlob: Sendable {
    public var path: String
    public var id: String
    public var remoteID: String

    public init(path: String, id: String, remoteID: String) {
        self.path = path
        self.id = id
        self.remoteID = remoteID
    }
}
