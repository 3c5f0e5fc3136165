import Foundation

/// Saving and deleting attachments: the fields that changed are recorded, and the blobs a
/// change stops or starts naming are freed or named anew (Store+BlobUse.swift).
extension Writer {
    /// Writes `media` as the new state of its record, recording exactly the fields that
    /// differ from `previous`.
    func save(_ media: Media, previous: StoredMedia?) throws {
        let schema = RecordSchema.media
        let values = RecordSchema.values(of: media)
        if !media.transcript.isEmpty || previous?.media.transcript.isEmpty == false {
            searchDirty.insert(media.entryID)
            if let old = previous?.media.entryID { searchDirty.insert(old) }
        }
        guard let previous else {
            try database.cached(schema.insertSQL).run(try schema.sqlValues(values, id: media.id))
            try touch(.media, media.id, schema.fieldsOfNewRecord, replacing: false)
            try nameAnew(media.blobID)
            return
        }
        let old = previous.media
        let changed = schema.changedFields(from: RecordSchema.values(of: old, deleted: previous.deleted), to: values)
        guard !changed.isEmpty else { return }
        try database.cached(schema.updateSQL).run(try schema.sqlValues(values, id: media.id))
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

/// A media record as stored, with its tombstone flag.
struct StoredMedia {
    var media: Media
    var deleted: Bool
}
