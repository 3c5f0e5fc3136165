import Foundation

/// The one place records are written. Every changed field is recorded in `field_clocks`
/// with this transaction's clock value and the store's device id, in the same transaction
/// as the change itself — so no mutation can escape change tracking, and a failed one
/// leaves no trace.
final class Writer {
    unowned let store: Store
    private(set) var issuedClock: HLC?
    /// Blob files this transaction created, removed again if it rolls back.
    private(set) var newBlobs: [String] = []

    /// Blobs a deletion or change here may have left unneeded: checked after commit.
    var freedBlobs: Set<String> = []
    /// Entries whose searchable text (title, body, transcripts, tags, place, deletion) changed.
    var searchDirty: Set<String> = []
    /// A first import's index may be built aside (`sendSearchRowsAside`); the build once
    /// begun, the highest rowid it was sent, and how many of `searchDirty` it could not be.
    var buildsSearchAside = false
    var searchBuild: SearchBuild?
    /// Where the build is made, attached to the store's connection (`ScratchIndexFile`); nil:
    /// a private temporary database, copied row by row.
    var searchScratch: ScratchIndexFile?
    var searchSentThrough: Int64 = 0
    var searchDirtyHeldBack = 0
    /// `Store.pushedWatermark`, read once a transaction (`sendEdgeOfUnpushedWrite`): no push
    /// confirms while a write holds the store.
    private var pushedWatermark: HLC?
    /// The newest clock merged from other devices in this transaction.
    var receivedClock: HLC?
    /// The newest field write merged in this transaction: its clock and device.
    var newestMerged: (clock: HLC, device: String)?
    private var touches = 0
    /// Device UUID → number, for this transaction's merges.
    var deviceNumbers: [String: Int64] = [:]
    /// The device `deviceNumber` answered for last.
    var lastDevice: (uuid: String, number: Int64)?
    /// Rows a merge in this transaction made sure exist ("j:<id>", "e:<id>", "m:<id>", "anchors"): rows
    /// are never removed, so each needs its INSERT OR IGNORE once, not once per field.
    var ensuredRows: Set<String> = []
    /// `insertEntry`'s statements, by the columns they set.
    var entryInserts: [[String]: Statement] = [:]
    /// `writeClocks`'s statements, by how many rows they write.
    var clockInserts: [Int: Statement] = [:]
    /// Clocks of merged fields not yet written (`flushClocks`).
    var pendingClocks = PendingClocks()
    /// `touch`'s statements, by how many fields they write.
    private var clockTouches: [Int: Statement] = [:]
    /// Journals known to exist in this transaction, by name.
    private var journals: [String: String] = [:]
    private var touchesAtMark = 0
    /// Text writes this transaction learned were replaced (`Writer+Ancestry`), by key text,
    /// and those of them not yet recorded.
    var learnedEdges: Set<String> = []
    var pendingEdges: [RevisionKey] = []

    init(store: Store) { self.store = store }

    /// Remembers how many fields were written so far, for `touchedSinceMark`.
    func mark() { touchesAtMark = touches }
    func touchedSinceMark() -> Bool { touches > touchesAtMark }

    var database: Database { store.database }

    /// This transaction's clock value, issued on first use after the store's last one.
    func clock() throws -> HLC {
        if let issuedClock { return issuedClock }
        let next = HLC.next(after: try store.lastClock(), wallMilliseconds: store.clock.milliseconds)
        issuedClock = next
        return next
    }

    /// Refreshes the full-text rows of the entries this transaction changed. Called once,
    /// just before commit (see migrations/0002_create_search.sql for why not triggers).
    /// While a restore merges, the rows are not refreshed: a new restore's go to the index
    /// built beside its merges (`RestoreIndex`); else the index is built once, when the
    /// merges are done (`Store.searchDeferred`).
    func refreshSearch() throws {
        if let build = searchBuild {
            searchBuild = nil
            let scratch = try build.finish()
            try searchScratch == nil ? store.installSearch(scratch) : store.installSearch(attached: ScratchIndexFile.schema)
        }
        guard !searchDirty.isEmpty else { return }
        if try store.searchDeferred() {
            if let aside = store.restoreIndex, !aside.spoiled { try sendRestoredRows(to: aside) }
            return
        }
        try store.refreshSearchRows(of: searchDirty)
        searchDirty.removeAll()
    }

    /// Records that `fields` of a record changed now, on this device (one statement). With
    /// `replacing` (false only for a record new here), the text writes replaced become
    /// ancestors (`Writer+Ancestry`): an edit made on top of a write is never its conflict.
    func touch(_ record: RecordKind, _ id: String, _ fields: [String], replacing: Bool = true) throws {
        guard !fields.isEmpty else { return }
        touches += fields.count
        if record == .entry, fields.contains(where: { RecordSchema.entry.field($0).map(\.changesSearch) ?? false }) {
            searchDirty.insert(id)
        }
        let schema = RecordSchema.of(record)
        let hlc = SQLValue.integer(try clock().rawValue)
        for field in fields where replacing && schema?.field(field)?.merge == .lastWriterWinsKeepingLoser {
            try sendEdgeOfUnpushedWrite(record, id, field, at: hlc)
            try database.cached("""
                INSERT OR IGNORE INTO superseded (record, record_id, field, hlc, device)
                SELECT record, record_id, field, hlc, device FROM field_clocks WHERE record = ? AND record_id = ? AND field = ?
                """).run([.text(record.rawValue), .text(id), .text(field)])
        }
        let kind = SQLValue.text(record.rawValue), recordID = SQLValue.text(id), device = SQLValue.integer(store.deviceNumber)
        var start = 0
        while start < fields.count {  // a note may bring thousands of tags
            let batch = fields[start..<min(start + Self.clockRowsPerStatement, fields.count)]
            start = batch.endIndex
            var values: [SQLValue] = []
            values.reserveCapacity(batch.count * 5)
            for field in batch {  // appended one by one: no array made for each field
                values.append(kind)
                values.append(recordID)
                values.append(.text(field))
                values.append(hlc)
                values.append(device)
            }
            try clockTouch(rows: batch.count).run(values)
        }
        try database.cached("""
            INSERT INTO outbox (record, record_id, hlc) VALUES (?, ?, ?)
            ON CONFLICT(record, record_id) DO UPDATE SET hlc = excluded.hlc
            """).run([.text(record.rawValue), .text(id), hlc])
    }

    /// When a write (this device's, or one merged) replaces one of this device's own not
    /// pushed yet, queues the edge that one carried (the write it replaced, when that one is
    /// another device's or was pushed) to be pushed on its own (`Store.revisionChanges`). A
    /// push sends a field's newest write alone, naming the write it replaced; a write that
    /// lost here goes as a revision, its text alone. A body written here over another
    /// device's B, then again before a sync, reached the others as D over C, and each of them,
    /// never hearing that C replaced B, kept B as a conflict this device never had; so did
    /// one whose C lost to a third device's write before it was pushed (found by
    /// `ConvergenceTests`).
    func sendEdgeOfUnpushedWrite(_ record: RecordKind, _ id: String, _ field: String, at hlc: SQLValue) throws {
        let pushed = try pushedWatermark ?? store.pushedWatermark()
        pushedWatermark = pushed
        let device = SQLValue.integer(store.deviceNumber)
        try database.cached("""
            INSERT INTO outbox (record, record_id, hlc)
            SELECT 'revision', c.record || '/' || c.record_id || '/' || c.field || '/' || c.prev_hlc || '/' || p.id, ?1
            FROM field_clocks c JOIN devices p ON p.num = c.prev_device
            WHERE c.record = ?2 AND c.record_id = ?3 AND c.field = ?4 AND c.device = ?5 AND c.hlc > ?6 AND c.prev_hlc <> 0
                AND NOT (c.prev_device = ?5 AND c.prev_hlc > ?6)
            ON CONFLICT(record, record_id) DO NOTHING
            """).run([hlc, .text(record.rawValue), .text(id), .text(field), device, .integer(pushed.rawValue)])
    }

    /// The most clock rows one statement writes: SQLite takes 32,766 variables, 7 a row at most.
    static let clockRowsPerStatement = 500

    /// The statement `touch` runs for `rows` fields: its text made and looked up once per
    /// count in a transaction, not once per record written (an import writes 100,000).
    private func clockTouch(rows: Int) throws -> Statement {
        if let known = clockTouches[rows] { return known }
        // The replaced clock becomes prev_*: what this write was made on top of.
        let statement = try database.cached("""
            INSERT INTO field_clocks (record, record_id, field, hlc, device) VALUES \(
                Array(repeating: "(?, ?, ?, ?, ?)", count: rows).joined(separator: ", "))
            ON CONFLICT(record, record_id, field) DO UPDATE SET
                prev_hlc = field_clocks.hlc, prev_device = field_clocks.device, hlc = excluded.hlc, device = excluded.device
            """)
        clockTouches[rows] = statement
        return statement
    }

    func touch(_ record: RecordKind, _ id: String, _ field: String) throws {
        try touch(record, id, [field])
    }

    func addBlob(_ source: AttachmentSource) throws -> BlobStore.Added {
        let added = try store.blobs.add(source)
        if added.isNew { newBlobs.append(added.id) }
        try store.recordBlob(added)
        return added
    }

    // MARK: - Journals

    /// The id of journal `name`, creating the journal record when it is new.
    func journalID(named name: String) throws -> String {
        if let known = journals[name] { return known }
        let id = RecordSchema.journalID(named: name)
        defer { journals[name] = id }
        let exists = try database.cached("SELECT deleted FROM journals WHERE id = ?").first([.text(id)]) { $0.int(0) }
        switch exists {
        case nil:
            try database.cached("INSERT INTO journals (id, name) VALUES (?, ?)").run([.text(id), .text(name)])
            try touch(.journal, id, "name")
        case 1?:
            try database.cached("UPDATE journals SET deleted = 0 WHERE id = ?").run([.text(id)])
            try touch(.journal, id, "deleted")
        default:
            break
        }
        return id
    }

    /// Deletes journal `name` (a tombstone that syncs), once no entry is left in it.
    func deleteJournal(named name: String) throws {
        let id = RecordSchema.journalID(named: name)
        try database.cached("UPDATE journals SET deleted = 1 WHERE id = ? AND deleted = 0").run([.text(id)])
        if database.changes > 0 { try touch(.journal, id, "deleted") }
        journals[name] = nil
    }

    // MARK: - Entries

    /// Writes `entry` (without its media) as the new state of its record, recording exactly
    /// the fields that differ from `previous` (all of them when there is none). A deleted
    /// entry that is saved again comes back.
    func save(_ entry: Entry, previous: StoredEntry?) throws {
        let schema = RecordSchema.entry, id = entry.id
        let values = RecordSchema.values(of: entry, journalID: try journalID(named: entry.journal))
        guard let previous else {
            try database.cached(schema.insertSQL).run(try schema.sqlValues(values, id: id))
            try touch(.entry, id, schema.fieldsOfNewRecord + entry.tags.map { RecordSchema.tagPrefix + $0 }, replacing: false)
            try insertTags(entry.tags, entryID: id)
            return
        }
        let old = RecordSchema.values(of: previous.entry, journalID: RecordSchema.journalID(named: previous.entry.journal),
                                      deleted: previous.deleted)
        let changed = schema.changedFields(from: old, to: values)
        if !changed.isEmpty {
            try database.cached(schema.updateSQL).run(try schema.sqlValues(values, id: id))
            try touch(.entry, id, changed)
        }
        if previous.deleted { try reviveMedia(ofEntry: id) }
        try saveTags(entry.tags, previous: previous.entry.tags, entryID: id)
    }

    /// Tags are one register each (`tag:<name>` = present or absent), so adding a tag on one
    /// machine and another tag on a second machine both survive a merge.
    private func saveTags(_ tags: [String], previous: [String], entryID: String) throws {
        let new = Set(tags), old = Set(previous)
        let added = new.subtracting(old).sorted(), removed = old.subtracting(new).sorted()
        try insertTags(added, entryID: entryID)
        for tag in removed {
            try database.cached("DELETE FROM entry_tags WHERE entry_id = ? AND tag = ?").run([.text(entryID), .text(tag)])
        }
        try touch(.entry, entryID, (added + removed).map { RecordSchema.tagPrefix + $0 })
    }

    private func insertTags(_ tags: [String], entryID: String) throws {
        for tag in tags {
            try database.cached("INSERT OR IGNORE INTO entry_tags (entry_id, tag) VALUES (?, ?)").run([.text(entryID), .text(tag)])
        }
    }

    /// An entry that comes back brings its live attachments back: each is written again (its
    /// `deleted` register, still false), so the next push names its blob — which may have been
    /// collected meanwhile and is checked on the server first.
    private func reviveMedia(ofEntry id: String) throws {
        let media = try database.cached("SELECT id, blob_id FROM media WHERE entry_id = ? AND deleted = 0")
            .rows([.text(id)]) { ($0.text(0), $0.text(1)) }
        for (mediaID, blob) in media {
            try touch(.media, mediaID, "deleted")
            try nameAnew(blob)
        }
    }

    /// Marks an entry deleted (a tombstone field, so the deletion syncs); its attachments'
    /// blobs are no longer needed.
    func deleteEntry(_ id: String) throws {
        try database.cached("UPDATE entries SET deleted = 1 WHERE id = ? AND deleted = 0").run([.text(id)])
        if database.changes > 0 {
            try touch(.entry, id, "deleted")
            try mayFreeBlobs(ofEntry: id)
        }
    }
}

/// An entry as stored, with its tombstone flag.
struct StoredEntry {
    var entry: Entry
    var deleted: Bool
}
