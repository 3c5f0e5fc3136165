import Foundation

/// A record with local writes not pushed yet.
package struct PendingRecord: Equatable, Sendable {
    package var kind: RecordKind
    package var id: String
}

/// The records a push has to send, in push order, held compactly: their ids in one buffer
/// (a first sync of 100,000 entries holds 4 MB of them, not 13 MB of separate strings).
package struct PendingRecords: RandomAccessCollection, Sendable {
    private var kinds: [RecordKind] = []
    private var bytes: [UInt8] = []
    /// Where each id ends in `bytes`.
    private var ends: [Int] = []

    package var startIndex: Int { 0 }
    package var endIndex: Int { kinds.count }

    package subscript(index: Int) -> PendingRecord {
        let start = index == 0 ? 0 : ends[index - 1]
        return PendingRecord(kind: kinds[index], id: String(decoding: bytes[start..<ends[index]], as: UTF8.self))
    }

    mutating func reserve(count: Int, bytes: Int) {
        kinds.reserveCapacity(count)
        ends.reserveCapacity(count)
        self.bytes.reserveCapacity(bytes)
    }

    mutating func append(_ kind: RecordKind, _ id: String) {
        kinds.append(kind)
        bytes.append(contentsOf: id.utf8)
        ends.append(bytes.count)
    }
}

/// Local changes waiting to be pushed, read in one consistent snapshot.
package struct PendingChanges: Sendable {
    package var changes: [SyncChange]
    /// Every outbox record changed at or before this clock is covered by `changes`.
    package var watermark: HLC
    /// Local blob ids (SHA-256) the changes reference.
    package var blobs: Set<String>
}

/// The push side of sync: what this device wrote that the repository has not seen, with the
/// values the record schema reads back, and the whole synced state for snapshots.
extension Store {
    /// True when some local change has not been pushed.
    package func hasPendingChanges() throws -> Bool {
        try database.cached("SELECT 1 FROM outbox LIMIT 1").first { _ in true } != nil
    }

    package func pendingCount() throws -> Int {
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

    /// The records with writes not pushed yet, in push order, and the newest outbox clock
    /// among them: every write at or before it is covered by these records. Attachments
    /// first, then journals, then the other kinds, each by id: a device pulling the log (a
    /// restore) learns from its first segments which attachments to download, and downloads
    /// them while it merges the text; and it knows a journal's name before it indexes the
    /// entries that carry it (their search rows hold it: entries sent first were indexed
    /// again once their journal came). Merges take records in any order (a field's clock
    /// decides).
    package func pendingRecords() throws -> (records: PendingRecords, watermark: HLC) {
        var records = PendingRecords(), watermark = HLC.zero
        if let size = try database.cached("SELECT count(*), coalesce(sum(length(record_id)), 0) FROM outbox").first([], { ($0.int(0), $0.int(1)) }) {
            records.reserve(count: Int(size.0), bytes: Int(size.1))
        }
        try database.prepare("SELECT record, record_id, hlc FROM outbox ORDER BY record <> 'media', record <> 'journal', record, record_id").forEach { row in
            watermark = max(watermark, HLC(rawValue: row.int(2)))
            if let kind = RecordKind(rawValue: row.text(0)) { records.append(kind, row.text(1)) }
        }
        return (records, watermark)
    }

    /// The attachments (local blob ids) that pending media records need (those of deleted
    /// records, or of deleted entries, are not uploaded).
    package func pendingBlobs(_ records: PendingRecords) throws -> Set<String> {
        var blobs = Set<String>()
        for record in records where record.kind == .media {
            if let blob = try neededBlob(ofMedia: record.id) { blobs.insert(blob) }
        }
        return blobs
    }

    /// This device's writes to `record` not pushed yet, each with the field's current value
    /// and clock, by field. A field written before the last confirmed push went in a segment
    /// the server holds (or, once pruned, in a snapshot): editing an entry's body sends the
    /// body and its time, not every field the entry has.
    package func changes(of record: PendingRecord) throws -> [SyncChange] {
        if record.kind == .revision { return try revisionChanges(record.id) }
        let values = try fieldValues(record.kind, record.id)
        var changes: [SyncChange] = []
        // This device's own writes: their device is this one, no lookup needed.
        try database.cached("""
            SELECT c.field, c.hlc, c.prev_hlc, coalesce(p.id, '') FROM field_clocks c
            LEFT JOIN devices p ON p.num = c.prev_device
            WHERE c.record = ? AND c.record_id = ? AND c.device = ? AND c.hlc > ? ORDER BY c.field
            """).forEach([.text(record.kind.rawValue), .text(record.id), .integer(deviceNumber), .integer(try pushedWatermark().rawValue)]) { row in
            let field = row.text(0)
            let value = value(of: field, kind: record.kind, in: values)
            changes.append(SyncChange(record: record.kind, recordID: record.id, field: field, value: value, hlc: HLC(rawValue: row.int(1)),
                                      device: deviceID, previousHLC: HLC(rawValue: row.int(2)), previousDevice: row.text(3)))
        }
        return changes
    }

    /// Calls `body` with every field of every record as a change carrying its clock: the
    /// whole synced state, for snapshots. Streams; never holds the journal in memory.
    /// Journals come first, as in a push (`pendingRecords`): a device starting from the
    /// snapshot knows their names before it indexes their entries.
    package func forEachSyncedField(_ body: (SyncChange) throws -> Void) throws {
        let statement = try database.prepare("""
            SELECT c.record, c.record_id, c.field, c.hlc, d.id, c.prev_hlc, coalesce(p.id, '') FROM field_clocks c
            JOIN devices d ON d.num = c.device LEFT JOIN devices p ON p.num = c.prev_device
            WHERE c.record = ? ORDER BY c.record_id, c.field
            """)
        var current: (RecordKind, String)?
        var values: [String: JSONValue] = [:]
        let kinds = [RecordKind.journal] + RecordKind.allCases.filter { $0 != .journal }.sorted { $0.rawValue < $1.rawValue }
        for kind in kinds {
            try statement.forEach([.text(kind.rawValue)]) { row in
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
        }
        // Kept revisions travel in snapshots too.
        let revisions = try database.prepare("""
            SELECT r.record, r.record_id, r.field, r.hlc, d.id, r.value, r.dismissed FROM revisions r JOIN devices d ON d.num = r.device
            ORDER BY r.record, r.record_id, r.field, r.hlc, d.id
            """)
        try revisions.forEach { row in
            let key = RevisionKey(record: row.text(0), recordID: row.text(1), field: row.text(2), hlc: HLC(rawValue: row.int(3)), device: row.text(4))
            for change in Self.revisionChanges(key, value: row.text(5), dismissed: row.int(6) != 0) { try body(change) }
        }
        // And the ancestry of text fields, so a device starting from a snapshot never takes an
        // ancestor arriving later for a conflict (Writer+Ancestry). Quires before it pass over them.
        let edges = try database.prepare("""
            SELECT s.record, s.record_id, s.field, s.hlc, d.id FROM superseded s JOIN devices d ON d.num = s.device
            ORDER BY s.record, s.record_id, s.field, s.hlc, d.id
            """)
        try edges.forEach { row in
            let key = RevisionKey(record: row.text(0), recordID: row.text(1), field: row.text(2), hlc: HLC(rawValue: row.int(3)), device: row.text(4))
            try body(SyncChange(record: .revision, recordID: key.text, field: "superseded", value: .bool(true), hlc: key.hlc, device: key.device))
        }
    }

    /// Local blob id → repository blob id for every blob known to the repository (only those a
    /// published segment names, with `confirmedOnly`; only those the journal needs, with
    /// `neededOnly`).
    package func remoteBlobMap(confirmedOnly: Bool = false, neededOnly: Bool = false) throws -> [String: String] {
        var conditions: [String] = []
        if confirmedOnly { conditions.append("r.confirmed = 1") }
        if neededOnly { conditions.append("EXISTS (SELECT 1 FROM \(Self.liveMedia) AND m.blob_id = r.blob_id)") }
        var map: [String: String] = [:]
        try database.prepare("SELECT r.blob_id, r.remote_id FROM remote_blobs r"
                             + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")))
            .forEach { map[$0.text(0)] = $0.text(1) }
        return map
    }

    /// A kept revision as changes, for pushing: its text, and its dismissal if it was; or,
    /// for a write replaced here by one that never left (`Writer.sendEdgeOfUnpushedWrite`),
    /// the edge that says so, as a snapshot carries it.
    func revisionChanges(_ id: String) throws -> [SyncChange] {
        guard let key = RevisionKey(id) else { return [] }
        let values: [SQLValue] = [.text(key.record), .text(key.recordID), .text(key.field), .integer(key.hlc.rawValue), .text(key.device)]
        if let kept = try database.cached("""
            SELECT r.value, r.dismissed FROM revisions r JOIN devices d ON d.num = r.device
            WHERE r.record = ? AND r.record_id = ? AND r.field = ? AND r.hlc = ? AND d.id = ?
            """).first(values, { Self.revisionChanges(key, value: $0.text(0), dismissed: $0.int(1) != 0) }) {
            return kept
        }
        let superseded = try database.cached("""
            SELECT 1 FROM superseded s JOIN devices d ON d.num = s.device
            WHERE s.record = ? AND s.record_id = ? AND s.field = ? AND s.hlc = ? AND d.id = ?
            """).first(values) { _ in true } ?? false
        return superseded ? [SyncChange(record: .revision, recordID: key.text, field: "superseded", value: .bool(true), hlc: key.hlc, device: key.device)] : []
    }

    /// The text first (none while it has not arrived), then the dismissal.
    static func revisionChanges(_ key: RevisionKey, value: String, dismissed: Bool) -> [SyncChange] {
        var changes: [SyncChange] = []
        if !value.isEmpty || !dismissed {
            changes.append(SyncChange(record: .revision, recordID: key.text, field: "value", value: .string(value), hlc: key.hlc, device: key.device))
        }
        if dismissed {
            changes.append(SyncChange(record: .revision, recordID: key.text, field: "dismissed", value: .bool(true), hlc: key.hlc, device: key.device))
        }
        return changes
    }

    /// Forgets outbox records whose changes (up to `watermark`) the server confirmed, and
    /// remembers how far this device's writes are pushed.
    package func markPushed(upTo watermark: HLC) throws {
        try database.transaction {
            try database.cached("DELETE FROM outbox WHERE hlc <= ?").run([.integer(watermark.rawValue)])
            if watermark.rawValue > (try pushedWatermark()).rawValue { try setMeta("pushed_watermark", String(watermark.rawValue)) }
        }
    }

    /// Every write of this device at or before this clock is in the repository (zero before
    /// the first confirmed push, and in stores from before it was kept: all is sent then).
    func pushedWatermark() throws -> HLC {
        HLC(rawValue: try meta("pushed_watermark").flatMap { Int64($0) } ?? 0)
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
}
