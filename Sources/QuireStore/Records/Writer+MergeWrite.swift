import Foundation

/// How merged changes are written: the values as the record schema declares them, their
/// clocks, and what a write means beyond its columns.
extension Writer {
    /// Writes the changes of one record (each field once) and their clocks: every column in
    /// one UPDATE, every clock in one INSERT, each field's meaning beyond its columns (rows
    /// it names, blobs it may free, search rows to refresh) around them.
    func apply(_ changes: [SyncChange]) throws {
        guard let first = changes.first else { return }
        if let schema = RecordSchema.of(first.record) {
            // An entry new here is inserted whole below, not made empty and then updated.
            let insertsEntry = first.record == .entry && !ensuredRows.contains("e:" + first.recordID)
            if !insertsEntry { try ensureRow(first.record, first.recordID) }
            var columns: [String] = [], values: [SQLValue] = []
            var written: [(index: Int, spec: FieldSpec)] = []
            for (index, change) in zip(changes.indices, changes) {
                // A field from a newer Quire: its clock is kept, the value ignored.
                guard let spec = schema.field(change.field) else { continue }
                guard let sql = spec.type.sqlValues(change.value, columns: spec.columns.count) else { throw bad(change) }
                try prepare(change, spec)
                if spec.type == .tag { try writeTag(change) } else { columns += spec.columns; values += sql }
                written.append((index, spec))
            }
            if insertsEntry {
                try insertEntry(first.recordID, columns: columns, values: values)
            } else if !columns.isEmpty {
                let sql = "UPDATE \(schema.table) SET " + columns.map { "\($0) = ?" }.joined(separator: ", ") + " WHERE id = ?"
                try database.cached(sql).run(values + [.text(first.recordID)])
            }
            for (index, spec) in written { try follow(changes[index], spec) }
        }
        pendingClocks.add(changes)
        if pendingClocks.count >= PendingClocks.limit { try flushClocks() }
    }

    /// Writes the clocks `apply` left pending, records in key order, a few hundred rows a
    /// statement. Written record by record, a restore's clocks cost a statement for every
    /// nine rows, each row landing on a leaf page at random (the ids are random): the home
    /// set's 96,041 clocks took 0.23 s of its merging thread under `perf`.
    func flushClocks() throws {
        guard pendingClocks.count > 0 else { return }
        let runs = pendingClocks.sorted()
        pendingClocks = PendingClocks()
        try writeClocks(runs.joined())
    }

    /// The clocks of `changes` (at most a few hundred rows per statement).
    private func writeClocks<Changes: Collection<SyncChange>>(_ changes: Changes) throws {
        var start = changes.startIndex
        while start < changes.endIndex {
            let end = changes.index(start, offsetBy: Self.clockRowsPerStatement, limitedBy: changes.endIndex) ?? changes.endIndex
            let batch = changes[start..<end]
            start = end
            var values: [SQLValue] = []
            values.reserveCapacity(batch.count * 7)
            for c in batch {  // appended one by one: no array made for each change
                values.append(.text(c.record.rawValue))
                values.append(.text(c.recordID))
                values.append(.text(c.field))
                values.append(.integer(c.hlc.rawValue))
                values.append(.integer(try deviceNumber(c.device)))
                values.append(.integer(c.previousHLC.rawValue))
                values.append(.integer(try deviceNumber(c.previousDevice)))
            }
            try clockInsert(rows: batch.count).run(values)
        }
    }

    /// The statement `writeClocks` runs for `rows` rows: its text made and looked up once per
    /// count in a transaction, not once per record merged.
    private func clockInsert(rows: Int) throws -> Statement {
        if let known = clockInserts[rows] { return known }
        let statement = try database.cached("""
            INSERT INTO field_clocks (record, record_id, field, hlc, device, prev_hlc, prev_device) VALUES \(
                Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", "))
            ON CONFLICT(record, record_id, field) DO UPDATE SET hlc = excluded.hlc, device = excluded.device,
                prev_hlc = excluded.prev_hlc, prev_device = excluded.prev_device
            """)
        clockInserts[rows] = statement
        return statement
    }

    func bad(_ change: SyncChange) -> StoreError { Store.unusable(change) }

    /// Before a field is written: what the value being replaced held (an attachment moved
    /// or re-pointed may free its blob), and the rows the new value names must exist.
    private func prepare(_ change: SyncChange, _ spec: FieldSpec) throws {
        if change.record == .journal, spec.name == "name", try journalName(change.recordID) != change.value.string {
            try dirtyEntries(ofJournal: change.recordID)
        }
        if change.record == .media, spec.changesSearch || spec.type == .reference(.entry),
           let old = try entryOf(transcribedMedia: change.recordID), !old.isEmpty {
            searchDirty.insert(old)
        }
        if change.record == .media, spec.type == .reference(.entry) || spec.type == .blob {
            mayFree(try blobOf(media: change.recordID))
        }
        switch (spec.type, change.value.string) {
        case (.reference(.journal), let journal?):
            try ensureJournal(journal)
        case (.reference(.entry), let entry?):
            try ensureEntry(entry)
        case (.blob, let blob?):
            try ensureBlobRow(blob)
        default:
            break
        }
    }

    /// A tag's register: present or absent.
    private func writeTag(_ change: SyncChange) throws {
        let tag = String(change.field.dropFirst(RecordSchema.tagPrefix.count))
        try database.cached(change.value == .bool(true) ? "INSERT OR IGNORE INTO entry_tags (entry_id, tag) VALUES (?, ?)"
                                                      : "DELETE FROM entry_tags WHERE entry_id = ? AND tag = ?")
            .run([.text(change.recordID), .text(tag)])
    }

    /// After a field is written: search rows to refresh, blobs a deletion frees.
    private func follow(_ change: SyncChange, _ spec: FieldSpec) throws {
        let isMedia = change.record == .media
        if spec.changesSearch || spec.type == .reference(.entry) {
            if change.record == .entry { searchDirty.insert(change.recordID) }
            if isMedia, let entry = try entryOf(transcribedMedia: change.recordID) { searchDirty.insert(entry) }
        }
        if spec.type == .tombstone && change.value == .bool(true) {
            if change.record == .entry { try mayFreeBlobs(ofEntry: change.recordID) }
            if isMedia { mayFree(try blobOf(media: change.recordID)) }
        }
    }

    private func journalName(_ id: String) throws -> String? {
        try database.cached("SELECT name FROM journals WHERE id = ?").first([.text(id)]) { $0.text(0) }
    }

    /// Marks for a refresh the search rows of journal `id`'s entries, which hold its name
    /// (migrations/0012): a journal's record can come after its entries (a push of many
    /// segments sent entries first until journals went first; a snapshot likewise), and
    /// entries merged before it were made with the name unknown (`ensureJournal`). Without
    /// this, a restore of 2,000 entries in journal "Dreams" found 570 of them by the name.
    private func dirtyEntries(ofJournal id: String) throws {
        try database.cached("SELECT id FROM entries WHERE journal_id = ?").forEach([.text(id)]) { searchDirty.insert($0.text(0)) }
    }

    /// The entry of attachment `id` when it has a transcript. An attachment is in its
    /// entry's search row by its transcript alone (`search_source`): one moved, deleted or
    /// transcribed changes the rows of the entries it was in (looked up before the write)
    /// and is in (after it) only when it has a transcript before or after. Each attachment
    /// merged used to mark its entry's row for a refresh, so a sync that brought the photos
    /// of entries already here tokenized and indexed each entry's text again for nothing.
    private func entryOf(transcribedMedia id: String) throws -> String? {
        try database.cached("SELECT entry_id FROM media WHERE id = ? AND transcript <> ''").first([.text(id)]) { $0.text(0) }
    }

    /// The row a change writes into. A record can be heard of before what it belongs to
    /// (another device's log, merged later, brings that): an attachment waits on a hidden
    /// anchor entry and blob meanwhile.
    private func ensureRow(_ kind: RecordKind, _ id: String) throws {
        switch kind {
        case .journal:
            try ensureJournal(id)
        case .entry:
            try ensureEntry(id)
        case .media:
            guard ensuredRows.insert("m:" + id).inserted else { return }
            try ensureAnchors()
            try database.cached("INSERT OR IGNORE INTO media (id, entry_id, kind, blob_id) VALUES (?, ?, 'file', ?)")
                .run([.text(id), .text(Self.anchorEntry), .text(Self.anchorBlob)])
        case .device:
            guard ensuredRows.insert("d:" + id).inserted else { return }
            try database.cached("INSERT OR IGNORE INTO device_names (id) VALUES (?)").run([.text(id)])
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

    /// A row for a journal first seen through a change (its name arrives with its own record;
    /// the default journal's is known, and may never arrive).
    private func ensureJournal(_ id: String) throws {
        guard ensuredRows.insert("j:" + id).inserted else { return }
        let name = id == Self.defaultJournalID ? Store.defaultJournal : ""
        try database.cached("INSERT OR IGNORE INTO journals (id, name) VALUES (?, ?)").run([.text(id), .text(name)])
    }

    /// A row for an entry first seen through a change; its fields arrive with it (or, when
    /// it was referenced by a change of another record, with another device's log).
    private func ensureEntry(_ id: String) throws {
        try insertEntry(id, columns: [], values: [])
    }

    /// The default journal's id, derived from its name (a hash: once, not once an entry).
    private static let defaultJournalID = RecordSchema.journalID(named: Store.defaultJournal)

    /// The columns an entry row cannot be without, as a row made before its fields holds them.
    private static let entryPlaceholder: [(String, SQLValue)] = [
        ("created", .text("1970-01-01T00:00:00Z")), ("created_us", .integer(0)), ("modified", .text("1970-01-01T00:00:00Z")),
    ]

    /// Makes the row of entry `id` with `columns` set to `values` (the others as a row made
    /// before its fields has them), or sets them in the row there (made when another record
    /// named the entry first). One statement: a restore writes each entry's row and index
    /// rows once, not an empty row first and then its fields.
    private func insertEntry(_ id: String, columns: [String], values: [SQLValue]) throws {
        guard ensuredRows.insert("e:" + id).inserted || !columns.isEmpty else { return }
        var row: [SQLValue] = [.text(id)] + values
        if !columns.contains("journal_id") {
            try ensureJournal(Self.defaultJournalID)
            row.append(.text(Self.defaultJournalID))
        }
        for (name, value) in Self.entryPlaceholder where !columns.contains(name) { row.append(value) }
        try entryInsert(columns).run(row)
    }

    /// The statement `insertEntry` runs for `columns`: made once per set of columns in a
    /// transaction (a restore's entries mostly share one), not its text for every entry.
    private func entryInsert(_ columns: [String]) throws -> Statement {
        if let known = entryInserts[columns] { return known }
        var names = columns
        if !columns.contains("journal_id") { names.append("journal_id") }
        for (name, _) in Self.entryPlaceholder where !columns.contains(name) { names.append(name) }
        let update = columns.isEmpty ? "NOTHING" : "UPDATE SET " + columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let statement = try database.cached("INSERT INTO entries (id, " + names.joined(separator: ", ") + ") VALUES (?"
                                            + String(repeating: ", ?", count: names.count) + ") ON CONFLICT(id) DO " + update)
        entryInserts[columns] = statement
        return statement
    }
}

extension Store {
    static func unusable(_ change: SyncChange) -> StoreError {
        StoreError(.malformed, detail: "change log has an unusable value for \(change.record.rawValue).\(change.field)")
    }

    /// Checks every value of `changes` as a merge would before writing it (its type, its
    /// range), writing nothing: `verify` refuses what every restore would refuse.
    /// - Throws: `.malformed` naming the record kind and field.
    package static func checkValues(_ changes: [SyncChange]) throws {
        for change in changes {
            guard let spec = RecordSchema.of(change.record)?.field(change.field) else { continue }
            guard spec.type.sqlValues(change.value, columns: spec.columns.count) != nil else { throw unusable(change) }
        }
    }
}
