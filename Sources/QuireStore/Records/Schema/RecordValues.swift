import Foundation

/// Records as field values: the one mapping from `Entry` and `Media` to the names the
/// schema declares. Saving compares these to find what changed; merging and snapshots read
/// the same values back from the row (`RecordSchema.values(of:)`).
extension RecordSchema {
    /// An entry's fields (tags aside: each is a register of its own). `journalID` is the
    /// record id of its journal.
    static func values(of entry: Entry, journalID: String, deleted: Bool = false) -> [String: JSONValue] {
        var location = JSONValue.null
        if let l = entry.location {
            location = .object(["lat": .number(l.latitude), "lon": .number(l.longitude), "name": l.name.map { .string($0) } ?? .null])
        }
        return ["journal": .string(journalID), "title": .string(entry.title), "body": .string(entry.body),
                "created": .string(entry.created.text), "modified": .string(entry.modified.text),
                "starred": .bool(entry.starred), "location": location, "deleted": .bool(deleted)]
    }

    /// An attachment's fields.
    static func values(of media: Media, deleted: Bool = false) -> [String: JSONValue] {
        ["entry": .string(media.entryID), "position": .number(Double(media.position)), "kind": .string(media.kind.name),
         "blob": .string(media.blobID), "filename": .string(media.filename), "mime": .string(media.mime),
         "duration": media.duration.map { .number($0) } ?? .null, "transcript": .string(media.transcript),
         "segments": (try? JSONValue.parse(JSONWriter.segments(media.segments))) ?? .array([]),
         "transcriber": .string(media.transcriber), "transcribedTo": media.transcribedTo.map { .number($0) } ?? .null,
         "deleted": .bool(deleted)]
    }

    /// The record id of journal `name` (the same on every device).
    static func journalID(named name: String) -> String {
        StableID.derived("journal\u{0}" + name)
    }
}
