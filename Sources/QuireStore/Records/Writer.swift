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

    private var touches = 0
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

    /// Records that `field` of a record changed now, on this device.
    func touch(_ record: RecordKind, _ id: String, _ field: String) throws {
        touches += 1
        try database.cached("""
            INSERT INTO field_clocks (record, record_id, field, hlc, device) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(record, record_id, field) DO UPDATE SET hlc = excluded.hlc, device = excluded.device
            """).run([.text(record.rawValue), .text(id), .text(field), .integer(try clock().rawValue), .text(store.deviceID)])
    }

    func addBlob(fileAt path: String) throws -> BlobStore.Added {
        let added = try store.blobs.add(fileAt: path)
        if added.isNew { newBlobs.append(added.id) }
        try database.cached("INSERT OR IGNORE INTO blobs (id, size) VALUES (?, ?)").run([.text(added.id), .integer(added.size)])
        return added
    }

    // MARK: - Journals

    /// The id of journal `name`, creating the journal record when it is new.
    func journalID(named name: String) throws -> String {
        let id = StableID.derived("journal\u{0}" + name)
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
            for field in ["journal", "title", "body", "created", "modified", "starred", "location"] {
                try touch(.entry, id, field)
            }
            try saveTags(entry.tags, previous: [], entryID: id)
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
            for field in changed { try touch(.entry, id, field) }
        }
        try saveTags(entry.tags, previous: old.tags, entryID: id)
    }

    /// Tags are one register each (`tag:<name>` = present or absent), so adding a tag on one
    /// machine and another tag on a second machine both survive a merge.
    private func saveTags(_ tags: [String], previous: [String], entryID: String) throws {
        let new = Set(tags), old = Set(previous)
        for tag in new.subtracting(old).sorted() {
            try database.cached("INSERT OR IGNORE INTO entry_tags (entry_id, tag) VALUES (?, ?)").run([.text(entryID), .text(tag)])
            try touch(.entry, entryID, "tag:" + tag)
        }
        for tag in old.subtracting(new).sorted() {
            try database.cached("DELETE FROM entry_tags WHERE entry_id = ? AND tag = ?").run([.text(entryID), .text(tag)])
            try touch(.entry, entryID, "tag:" + tag)
        }
    }

    /// Marks an entry deleted (a tombstone field, so the deletion syncs).
    func deleteEntry(_ id: String) throws {
        try database.cached("UPDATE entries SET deleted = 1 WHERE id = ? AND deleted = 0").run([.text(id)])
        if database.changes > 0 { try touch(.entry, id, "deleted") }
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
        guard let previous else {
            try database.cached("""
                INSERT INTO media (entry_id, position, kind, blob_id, filename, mime, duration, transcript, segments, id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).run(values)
            for field in ["entry", "position", "kind", "blob", "filename", "mime", "duration", "transcript", "segments"] {
                try touch(.media, media.id, field)
            }
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
        for field in changed { try touch(.media, media.id, field) }
    }

    func deleteMedia(_ id: String) throws {
        try database.cached("UPDATE media SET deleted = 1 WHERE id = ? AND deleted = 0").run([.text(id)])
        if database.changes > 0 { try touch(.media, id, "deleted") }
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
