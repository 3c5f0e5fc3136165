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
    /// Entries whose searchable text (title, body, transcripts, deletion) changed.
    var searchDirty: Set<String> = []
    /// The newest clock merged from other devices in this transaction.
    var receivedClock: HLC?
    private var touches = 0
    /// Device UUID → number, for this transaction's merges.
    var deviceNumbers: [String: Int64] = [:]
    /// Rows a merge in this transaction made sure exist ("e:<id>", "m:<id>", "anchors"): rows
    /// are never removed, so each needs its INSERT OR IGNORE once, not once per field.
    var ensuredRows: Set<String> = []
    /// Journals known to exist in this transaction, by name.
    private var journals: [String: String] = [:]
    private var touchesAtMark = 0

    init(store: Store) { self.store = store }

    /// Remembers how many fields were written so far, for `touchedSinceMark`.
    func mark() { touchesAtMark = touches }
    func touchedSinceMark() -> Bool { touches > touchesAtMark }

    private var database: Database { store.database }

    /// This transaction's clock value, issued on first use after the store's last one.
    func clock() throws -> HLC {
        if let issuedClock { return issuedClock }
        let next = HLC.next(after: try store.lastClock(), wallMilliseconds: store.clock.milliseconds)
        issuedClock = next
        return next
    }

    /// Refreshes the full-text rows of the entries this transaction changed. Called once,
    /// just before commit (see migrations/0002_create_search.sql for why not triggers).
    func refreshSearch() throws {
        guard !searchDirty.isEmpty else { return }
        try database.execute("CREATE TEMP TABLE IF NOT EXISTS search_dirty (id TEXT PRIMARY KEY) WITHOUT ROWID")
        let insert = try database.cached("INSERT OR IGNORE INTO temp.search_dirty (id) VALUES (?)")
        for id in searchDirty { try insert.run([.text(id)]) }
        try database.execute("""
            DELETE FROM search WHERE rowid IN (SELECT e.rowid FROM entries e JOIN temp.search_dirty d ON d.id = e.id);
            INSERT INTO search (rowid, title, body, transcripts)
                SELECT s.rowid, s.title, s.body, s.transcripts FROM temp.search_dirty d JOIN search_source s ON s.id = d.id;
            DELETE FROM temp.search_dirty;
            """)
        searchDirty.removeAll()
    }

    /// Records that `fields` of a record changed now, on this device (one statement).
    func touch(_ record: RecordKind, _ id: String, _ fields: [String]) throws {
        guard !fields.isEmpty else { return }
        touches += fields.count
        if record == .entry && fields.contains(where: { $0 == "title" || $0 == "body" || $0 == "deleted" }) {
            searchDirty.insert(id)
        }
        let rows = Array(repeating: "(?, ?, ?, ?, ?)", count: fields.count).joined(separator: ", ")
        // The replaced clock becomes prev_*: what this write was made on top of.
        let statement = try database.cached("""
            INSERT INTO field_clocks (record, record_id, field, hlc, device) VALUES \(rows)
            ON CONFLICT(record, record_id, field) DO UPDATE SET
                prev_hlc = field_clocks.hlc, prev_device = field_clocks.device, hlc = excluded.hlc, device = excluded.device
            """)
        let hlc = SQLValue.integer(try clock().rawValue)
        var values: [SQLValue] = []
        values.reserveCapacity(fields.count * 5)
        for field in fields {
            values += [.text(record.rawValue), .text(id), .text(field), hlc, .integer(store.deviceNumber)]
        }
        try statement.run(values)
        try database.cached("""
            INSERT INTO outbox (record, record_id, hlc) VALUES (?, ?, ?)
            ON CONFLICT(record, record_id) DO UPDATE SET hlc = excluded.hlc
            """).run([.text(record.rawValue), .text(id), hlc])
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
        let id = StableID.derived("journal\u{0}" + name)
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

    // MARK: - Entries

    /// Writes `entry` (without its media) as the new state of its record, recording exactly
    /// the fields that differ from `previous` (all of them when there is none). A deleted
    /// entry that is saved again comes back.
    func save(_ entry: Entry, previous: StoredEntry?) throws {
        let id = entry.id
        let location = entry.location
        let values: [SQLValue] = [
            .text(try journalID(named: entry.journal)), .text(entry.title), .text(entry.body),
            .text(entry.created.text), .integer(entry.created.microseconds), .text(entry.modified.text),
            SQLValue(entry.starred), SQLValue(location?.latitude), SQLValue(location?.longitude),
            SQLValue(location?.name), .text(id),
        ]
        guard let previous else {
            try database.cached("""
                INSERT INTO entries (journal_id, title, body, created, created_us, modified, starred,
                                     latitude, longitude, place, id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).run(values)
            try touch(.entry, id, ["journal", "title", "body", "created", "modified", "starred", "location"]
                      + entry.tags.map { "tag:" + $0 })
            try insertTags(entry.tags, entryID: id)
            return
        }
        let old = previous.entry
        var changed: [String] = []
        if old.journal != entry.journal { changed.append("journal") }
        if old.title != entry.title { changed.append("title") }
        if old.body != entry.body { changed.append("body") }
        if old.created.text != entry.created.text { changed.append("created") }
        if old.modified.text != entry.modified.text { changed.append("modified") }
        if old.starred != entry.starred { changed.append("starred") }
        if old.location != entry.location { changed.append("location") }
        if previous.deleted { changed.append("deleted") }
        if !changed.isEmpty {
            try database.cached("""
                UPDATE entries SET journal_id = ?, title = ?, body = ?, created = ?, created_us = ?, modified = ?,
                                   starred = ?, latitude = ?, longitude = ?, place = ?, deleted = 0 WHERE id = ?
                """).run(values)
            try touch(.entry, id, changed)
        }
        if previous.deleted { try reviveMedia(ofEntry: id) }
        try saveTags(entry.tags, previous: old.tags, entryID: id)
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
        try touch(.entry, entryID, (added + removed).map { "tag:" + $0 })
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

    // MARK: - Media

    /// Writes `media` as the new state of its record, recording exactly the fields that
    /// differ from `previous`.
    func save(_ media: Media, previous: StoredMedia?) throws {
        let segments = JSONWriter.segments(media.segments)
        let values: [SQLValue] = [
            .text(media.entryID), .integer(Int64(media.position)), .text(media.kind.rawValue), .text(media.blobID),
            .text(media.filename), .text(media.mime), SQLValue(media.duration), .text(media.transcript),
            .text(segments), .text(media.id),
        ]
        if !media.transcript.isEmpty || previous?.media.transcript.isEmpty == false {
            searchDirty.insert(media.entryID)
            if let old = previous?.media.entryID { searchDirty.insert(old) }
        }
        guard let previous else {
            try database.cached("""
                INSERT INTO media (entry_id, position, kind, blob_id, filename, mime, duration, transcript, segments, id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).run(values)
            try touch(.media, media.id, ["entry", "position", "kind", "blob", "filename", "mime", "duration", "transcript", "segments"])
            try nameAnew(media.blobID)
            return
        }
        let old = previous.media
        var changed: [String] = []
        if old.entryID != media.entryID { changed.append("entry") }
        if old.position != media.position { changed.append("position") }
        if old.kind != media.kind { changed.append("kind") }
        if old.blobID != media.blobID { changed.append("blob") }
        if old.filename != media.filename { changed.append("filename") }
        if old.mime != media.mime { changed.append("mime") }
        if old.duration != media.duration { changed.append("duration") }
        if old.transcript != media.transcript { changed.append("transcript") }
        if old.segments != media.segments { changed.append("segments") }
        if previous.deleted { changed.append("deleted") }
        guard !changed.isEmpty else { return }
        try database.cached("""
            UPDATE media SET entry_id = ?, position = ?, kind = ?, blob_id = ?, filename = ?, mime = ?, duration = ?,
                             transcript = ?, segments = ?, deleted = 0 WHERE id = ?
            """).run(values)
        try touch(.media, media.id, changed)
        if old.blobID != media.blobID { mayFree(old.blobID) }
        if old.entryID != media.entryID { mayFree(media.blobID) }
        if old.blobID != media.blobID || previous.deleted { try nameAnew(media.blobID) }
    }

    func deleteMedia(_ id: String) throws {
        try database.cached("UPDATE media SET deleted = 1 WHERE id = ? AND deleted = 0").run([.text(id)])
        if database.changes > 0 {
            try touch(.media, id, "deleted")
            mayFree(try blobOf(media: id))
            if let entryID = try database.cached("SELECT entry_id FROM media WHERE id = ?").first([.text(id)], { $0.text(0) }) {
                searchDirty.insert(entryID)
            }
        }
    }
}

/// An entry as stored, with its tombstone flag.
struct StoredEntry {
    var entry: Entry
    var deleted: Bool
}

/// A media record as stored, with its tombstone flag.
struct StoredMedia {
    var media: Media
    var deleted: Bool
}
