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

    /// The text `revision`'s field holds now and the device that wrote it: what the kept
    /// version lost to (or was replaced by since). Nil when the record is gone.
    public func currentText(of revision: Revision) throws -> (text: String, device: String)? {
        guard let kind = RecordKind(rawValue: revision.record),
              let device = try database.cached("""
                  SELECT d.id FROM field_clocks c JOIN devices d ON d.num = c.device WHERE c.record = ? AND c.record_id = ? AND c.field = ?
                  """).first([.text(revision.record), .text(revision.recordID), .text(revision.field)], { $0.text(0) }) else { return nil }
        return (try fieldValues(kind, revision.recordID)[revision.field]?.string ?? "", device)
    }

    /// Stops listing `revision`, on every device once synced; the version that won stays.
    public func dismiss(_ revision: Revision) throws {
        try write { writer in try writer.dismiss(revision.key) }
    }

    /// Makes `revision`'s text the field's value again (a new edit, which syncs), and
    /// dismisses it. The edit continues the kept version's history, not the one that had won:
    /// that version is then a head no write names, so it is kept as a revision in turn, listed
    /// here and on every device until it is dismissed. Nothing a person wrote is dropped.
    /// A transcript kept so loses its timing, which the revision does not hold.
    /// - Returns: the version it replaced, now listed as a conflict (nil when none was).
    /// - Throws: `.notFound` when its entry or attachment is gone.
    @discardableResult
    public func keep(_ revision: Revision) throws -> Revision? {
        try write { writer in
            let replaced = try writer.currentWrite(revision.record, revision.recordID, revision.field)
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
            // Dismissed first: the kept one is an ancestor now, and a dismissed revision stays
            // (Quires that do not know ancestry stop listing it by its dismissal).
            try writer.dismiss(revision.key)
            guard let replaced, replaced.text != revision.value else { return nil }
            try writer.continueHistory(from: revision.key, replacing: replaced)
            let key = replaced.key
            return Revision(record: key.record, recordID: key.recordID, field: key.field, value: replaced.text, hlc: key.hlc, device: key.device)
        }
    }
}

extension Writer {
    /// The write a text field holds now: its clock, device and text.
    func currentWrite(_ record: String, _ id: String, _ field: String) throws -> (key: RevisionKey, text: String)? {
        guard let kind = RecordKind(rawValue: record),
              let clock = try database.cached("""
                  SELECT c.hlc, d.id FROM field_clocks c JOIN devices d ON d.num = c.device WHERE c.record = ? AND c.record_id = ? AND c.field = ?
                  """).first([.text(record), .text(id), .text(field)], { (HLC(rawValue: $0.int(0)), $0.text(1)) }) else { return nil }
        let text = try store.fieldValues(kind, id)[field]?.string ?? ""
        return (RevisionKey(record: record, recordID: id, field: field, hlc: clock.0, device: clock.1), text)
    }

    /// Makes the field's newest write (just made) the successor of `kept` instead of
    /// `replaced`, which stays a head of the history and is kept as a revision.
    func continueHistory(from kept: RevisionKey, replacing replaced: (key: RevisionKey, text: String)) throws {
        let field: [SQLValue] = [.text(kept.record), .text(kept.recordID), .text(kept.field)]
        try database.cached("UPDATE field_clocks SET prev_hlc = ?, prev_device = ? WHERE record = ? AND record_id = ? AND field = ?")
            .run([.integer(kept.hlc.rawValue), .integer(try deviceNumber(kept.device))] + field)
        try database.cached("DELETE FROM superseded WHERE record = ? AND record_id = ? AND field = ? AND hlc = ? AND device = ?")
            .run(field + [.integer(replaced.key.hlc.rawValue), .integer(try deviceNumber(replaced.key.device))])
        noteSuperseded(kept)
        try settleAncestry()
        _ = try keepRevision(replaced.key, value: replaced.text)
    }

    /// Marks a revision dismissed, and every other of its field that holds the same text
    /// (listed as one, `Store.conflicts`), and queues them for the next push.
    func dismiss(_ key: RevisionKey) throws {
        let same = try database.cached("""
            SELECT r.hlc, d.id FROM revisions r JOIN devices d ON d.num = r.device
            WHERE r.record = ?1 AND r.record_id = ?2 AND r.field = ?3 AND r.dismissed = 0 AND r.value = (
                SELECT v.value FROM revisions v JOIN devices e ON e.num = v.device
                WHERE v.record = ?1 AND v.record_id = ?2 AND v.field = ?3 AND v.hlc = ?4 AND e.id = ?5)
            """).rows([.text(key.record), .text(key.recordID), .text(key.field), .integer(key.hlc.rawValue), .text(key.device)]) {
            RevisionKey(record: key.record, recordID: key.recordID, field: key.field, hlc: HLC(rawValue: $0.int(0)), device: $0.text(1))
        }
        for key in [key] + same.filter({ $0.text != key.text }) {
            try database.cached("""
                UPDATE revisions SET dismissed = 1 WHERE record = ? AND record_id = ? AND field = ? AND hlc = ?
                    AND device = (SELECT num FROM devices WHERE id = ?)
                """).run([.text(key.record), .text(key.recordID), .text(key.field), .integer(key.hlc.rawValue), .text(key.device)])
            try database.cached("INSERT INTO outbox (record, record_id, hlc) VALUES ('revision', ?, ?) ON CONFLICT(record, record_id) DO UPDATE SET hlc = excluded.hlc")
                .run([.text(key.text), .integer(try clock().rawValue)])
        }
    }
}
