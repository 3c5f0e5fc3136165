import Foundation

/// Merging other devices' writes: each field is a last-writer-wins register ordered by
/// (HLC, device UUID). A text field's concurrent loser is kept in `revisions`.
extension Writer {
    func merge(_ changes: [SyncChange]) throws -> MergeResult {
        var result = MergeResult()
        let readClock = try database.cached("""
            SELECT c.hlc, d.id, c.prev_hlc, coalesce(p.id, '') FROM field_clocks c
            JOIN devices d ON d.num = c.device LEFT JOIN devices p ON p.num = c.prev_device
            WHERE c.record = ? AND c.record_id = ? AND c.field = ?
            """)
        // A record this store has no clock for takes every field without a lookup (a restore
        // is almost all such records): one query per record instead of one per field.
        let anyClock = try database.cached("SELECT 1 FROM field_clocks WHERE record = ? AND record_id = ? LIMIT 1")
        var run: (record: RecordKind, id: String, isNew: Bool, fields: Set<String>)?
        for change in changes {
            receivedClock = max(receivedClock ?? .zero, change.hlc)
            if change.record == .revision {
                // Revisions travel as immutable records, so a device whose write won learns of
                // the one that lost even when the loser never pushed it as a field write.
                if let text = change.value.string, let key = RevisionKey(change.recordID) {
                    try database.cached("INSERT OR IGNORE INTO revisions (record, record_id, field, value, hlc, device) VALUES (?, ?, ?, ?, ?, ?)")
                        .run([.text(key.record), .text(key.recordID), .text(key.field), .text(text), .integer(key.hlc.rawValue),
                              .integer(try deviceNumber(key.device))])
                }
                continue
            }
            if run?.record != change.record || run?.id != change.recordID {
                let isNew = try anyClock.first([.text(change.record.rawValue), .text(change.recordID)]) { _ in true } == nil
                run = (change.record, change.recordID, isNew, [])
            }
            // A field met twice in one run (never in a well-formed log) is looked up like any other.
            let unseen = run?.fields.insert(change.field).inserted ?? false
            let key: [SQLValue] = [.text(change.record.rawValue), .text(change.recordID), .text(change.field)]
            let local = run?.isNew == true && unseen ? nil : try readClock.first(key) {
                (hlc: HLC(rawValue: $0.int(0)), device: $0.text(1), prevHLC: HLC(rawValue: $0.int(2)), prevDevice: $0.text(3))
            }
            guard let local else {
                try apply(change)
                result.applied += 1
                continue
            }
            if change.hlc == local.hlc && change.device == local.device { continue }  // seen before
            if change.wins(over: local.hlc, device: local.device) {
                let sequential = change.previousHLC == local.hlc && change.previousDevice == local.device
                if !sequential && change.isText, let old = try store.fieldValues(change.record, change.recordID)[change.field],
                   old != change.value, let text = old.string {
                    try keepRevision(change, value: text, hlc: local.hlc, device: local.device)
                    result.conflicts += 1
                }
                try apply(change)
                result.applied += 1
            } else {
                let sequential = local.prevHLC == change.hlc && local.prevDevice == change.device
                if !sequential && change.isText, let text = change.value.string,
                   try store.fieldValues(change.record, change.recordID)[change.field] != change.value {
                    try keepRevision(change, value: text, hlc: change.hlc, device: change.device)
                    result.conflicts += 1
                }
            }
        }
        return result
    }

    private func keepRevision(_ change: SyncChange, value: String, hlc: HLC, device: String) throws {
        try database.cached("INSERT OR IGNORE INTO revisions (record, record_id, field, value, hlc, device) VALUES (?, ?, ?, ?, ?, ?)")
            .run([.text(change.record.rawValue), .text(change.recordID), .text(change.field), .text(value),
                  .integer(hlc.rawValue), .integer(try deviceNumber(device))])
        guard database.changes > 0 else { return }
        // New here: push it, so every device keeps it.
        let key = RevisionKey(record: change.record.rawValue, recordID: change.recordID, field: change.field, hlc: hlc, device: device)
        try database.cached("INSERT INTO outbox (record, record_id, hlc) VALUES ('revision', ?, ?) ON CONFLICT(record, record_id) DO NOTHING")
            .run([.text(key.text), .integer(try clock().rawValue)])
    }

    func deviceNumber(_ uuid: String) throws -> Int64 {
        if uuid.isEmpty { return 0 }
        if let known = deviceNumbers[uuid] { return known }
        try database.cached("INSERT OR IGNORE INTO devices (id) VALUES (?)").run([.text(uuid)])
        let number = try database.cached("SELECT num FROM devices WHERE id = ?").first([.text(uuid)]) { $0.int(0) } ?? 0
        deviceNumbers[uuid] = number
        return number
    }

    /// Writes the change's value and clock.
    private func apply(_ change: SyncChange) throws {
        try writeValue(change)
        try database.cached("""
            INSERT INTO field_clocks (record, record_id, field, hlc, device, prev_hlc, prev_device) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(record, record_id, field) DO UPDATE SET hlc = excluded.hlc, device = excluded.device,
                prev_hlc = excluded.prev_hlc, prev_device = excluded.prev_device
            """).run([.text(change.record.rawValue), .text(change.recordID), .text(change.field), .integer(change.hlc.rawValue),
                      .integer(try deviceNumber(change.device)), .integer(change.previousHLC.rawValue),
                      .integer(try deviceNumber(change.previousDevice))])
    }

    private func bad(_ change: SyncChange) -> StoreError {
        StoreError(.malformed, detail: "change log has an unusable value for \(change.record.rawValue).\(change.field)")
    }

    /// Writes one field as the schema declares it, with what the write means beyond its
    /// columns: placeholder rows for records it names, blobs it may free, search rows to refresh.
    private func writeValue(_ change: SyncChange) throws {
        guard let schema = RecordSchema.of(change.record) else { return }  // revisions: merged above
        try ensureRow(change.record, change.recordID)
        // A field from a newer Quire: its clock is kept, the value ignored.
        guard let spec = schema.field(change.field) else { return }
        guard let values = spec.type.sqlValues(change.value, columns: spec.columns.count) else { throw bad(change) }
        let id = SQLValue.text(change.recordID), isMedia = change.record == .media
        // What the value being replaced held: an attachment moved or re-pointed may free its blob.
        if isMedia, spec.type == .reference(.entry) || spec.type == .blob {
            if spec.type == .reference(.entry), let old = try entryOf(media: change.recordID), !old.isEmpty { searchDirty.insert(old) }
            mayFree(try blobOf(media: change.recordID))
        }
        // What the new value names must exist.
        switch (spec.type, change.value.string) {
        case (.reference(.journal), let journal?):
            try database.cached("INSERT OR IGNORE INTO journals (id, name) VALUES (?, '')").run([.text(journal)])
        case (.reference(.entry), let entry?):
            try ensureEntry(entry)
        case (.blob, let blob?):
            try ensureBlobRow(blob)
        default:
            break
        }
        if spec.type == .tag {
            let tag = String(change.field.dropFirst(RecordSchema.tagPrefix.count))
            try database.cached(change.value == .bool(true) ? "INSERT OR IGNORE INTO entry_tags (entry_id, tag) VALUES (?, ?)"
                                                          : "DELETE FROM entry_tags WHERE entry_id = ? AND tag = ?").run([id, .text(tag)])
        } else {
            try database.cached(spec.updateSQL).run(values + [id])
        }
        if spec.changesSearch || spec.type == .reference(.entry) {
            if change.record == .entry { searchDirty.insert(change.recordID) }
            if isMedia, let entry = try entryOf(media: change.recordID) { searchDirty.insert(entry) }
        }
        if spec.type == .tombstone && change.value == .bool(true) {
            if change.record == .entry { try mayFreeBlobs(ofEntry: change.recordID) }
            if isMedia { mayFree(try blobOf(media: change.recordID)) }
        }
    }

    private func entryOf(media id: String) throws -> String? {
        try database.cached("SELECT entry_id FROM media WHERE id = ?").first([.text(id)]) { $0.text(0) }
    }

    /// The row a change writes into. A record can be heard of before what it belongs to
    /// (another device's log, merged later, brings that): an attachment waits on a hidden
    /// anchor entry and blob meanwhile.
    private func ensureRow(_ kind: RecordKind, _ id: String) throws {
        switch kind {
        case .journal:
            try database.cached("INSERT OR IGNORE INTO journals (id, name) VALUES (?, '')").run([.text(id)])
        case .entry:
            try ensureEntry(id)
        case .media:
            guard ensuredRows.insert("m:" + id).inserted else { return }
            try ensureAnchors()
            try database.cached("INSERT OR IGNORE INTO media (id, entry_id, kind, blob_id) VALUES (?, ?, 'file', ?)")
                .run([.text(id), .text(Self.anchorEntry), .text(Self.anchorBlob)])
        case .revision:
            break
        }
    }

    static let anchorEntry = "00000000-0000-0000-0000-000000000000"
    static let anchorBlob = String(repeating: "0", count: 64)

    /// The hidden (deleted) entry and empty blob that media wait on for their real ones.
    private func ensureAnchors() throws {
        guard ensuredRows.insert("anchors").inserted else { return }
        try ensureEntry(Self.anchorEntry)
        try database.cached("UPDATE entries SET deleted = 1 WHERE id = ? AND deleted = 0").run([.text(Self.anchorEntry)])
        try database.cached("INSERT OR IGNORE INTO blobs (id, size) VALUES (?, 0)").run([.text(Self.anchorBlob)])
    }

    /// A row for an entry first seen through a change; its fields arrive with it (or, when
    /// it was referenced by a change of another record, with another device's log).
    private func ensureEntry(_ id: String) throws {
        guard ensuredRows.insert("e:" + id).inserted else { return }
        let journal = RecordSchema.journalID(named: Store.defaultJournal)
        try database.cached("INSERT OR IGNORE INTO journals (id, name) VALUES (?, ?)").run([.text(journal), .text(Store.defaultJournal)])
        try database.cached("""
            INSERT OR IGNORE INTO entries (id, journal_id, created, created_us, modified) VALUES (?, ?, '1970-01-01T00:00:00Z', 0, '1970-01-01T00:00:00Z')
            """).run([.text(id), .text(journal)])
    }
}

/// The id of a revision record: "<record>/<record id>/<field>/<hlc>/<device>".
struct RevisionKey {
    var record: String
    var recordID: String
    var field: String
    var hlc: HLC
    var device: String

    init(record: String, recordID: String, field: String, hlc: HLC, device: String) {
        self.record = record
        self.recordID = recordID
        self.field = field
        self.hlc = hlc
        self.device = device
    }

    init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 5, let hlc = Int64(parts[parts.count - 2]), RecordKind(rawValue: parts[0]) != nil else { return nil }
        record = parts[0]
        recordID = parts[1]
        field = parts[2..<(parts.count - 2)].joined(separator: "/")
        self.hlc = HLC(rawValue: hlc)
        device = parts[parts.count - 1]
    }

    var text: String { "\(record)/\(recordID)/\(field)/\(hlc.rawValue)/\(device)" }
}
