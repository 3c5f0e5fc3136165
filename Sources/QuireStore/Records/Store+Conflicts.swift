import Foundation

/// Settling a kept revision: dismissing it (the version that won stays), or keeping it (its
/// text is written back as a new edit, then it is dismissed). Both sync: the edit like any
/// other, the dismissal as a change of the revision record.
extension Store {
    /// The listed revision whose id starts with `prefix` (8 or more characters).
    /// - Throws: `.notFound`, `.ambiguous`.
    public func conflict(_ prefix: String) throws -> Revision {
        let wanted = prefix.lowercased()
        guard wanted.count >= 8 else { throw StoreError(.notFound, detail: "give 8 or more characters of the conflict's id") }
        let matches = try conflicts().filter { $0.id.hasPrefix(wanted) }
        guard let first = matches.first else { throw StoreError(.notFound, detail: "no conflict with id \(prefix)") }
        guard matches.count == 1 else { throw StoreError(.ambiguous, detail: "\(prefix) names \(matches.count) conflicts") }
        return first
    }

    /// Stops listing `revision`, on every device once synced; the version that won stays.
    public func dismiss(_ revision: Revision) throws {
        try write { writer in try writer.dismiss(revision.key) }
    }

    /// Makes `revision`'s text the field's value again (a new edit, which syncs), and
    /// dismisses it. A transcript kept so loses its timing, which the revision does not hold.
    /// - Throws: `.notFound` when its entry or attachment is gone.
    public func keep(_ revision: Revision) throws {
        try write { writer in
            switch (revision.record, revision.field) {
            case ("entry", "title"), ("entry", "body"):
                guard let stored = try storedEntry(id: revision.recordID), !stored.deleted else {
                    throw StoreError(.notFound, detail: "the entry of that conflict is deleted")
                }
                var entry = stored.entry
                if revision.field == "title" { entry.title = revision.value } else { entry.body = revision.value }
                try writer.save(entry, previous: stored)
            case ("media", "transcript"):
                guard let stored = try storedMedia(id: revision.recordID), !stored.deleted else {
                    throw StoreError(.notFound, detail: "the attachment of that conflict is deleted")
                }
                var media = stored.media
                media.transcript = revision.value
                media.segments = []
                try writer.save(media, previous: stored)
            default:
                throw StoreError(.invalid, detail: "a conflict of \(revision.record).\(revision.field) cannot be kept")
            }
            try writer.dismiss(revision.key)
        }
    }
}

extension Writer {
    /// Marks a revision dismissed and queues it for the next push.
    func dismiss(_ key: RevisionKey) throws {
        try database.cached("""
            UPDATE revisions SET dismissed = 1 WHERE record = ? AND record_id = ? AND field = ? AND hlc = ?
                AND device = (SELECT num FROM devices WHERE id = ?)
            """).run([.text(key.record), .text(key.recordID), .text(key.field), .integer(key.hlc.rawValue), .text(key.device)])
        try database.cached("INSERT INTO outbox (record, record_id, hlc) VALUES ('revision', ?, ?) ON CONFLICT(record, record_id) DO UPDATE SET hlc = excluded.hlc")
            .run([.text(key.text), .integer(try clock().rawValue)])
    }
}
