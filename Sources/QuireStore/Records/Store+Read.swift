import Foundation

extension Store {
    private static let entryColumns = """
        SELECT e.id, j.name, e.title, e.body, e.created, e.created_us, e.modified, e.starred,
               e.latitude, e.longitude, e.place, e.deleted
        FROM entries e JOIN journals j ON j.id = e.journal_id
        """

    private static let mediaColumns = """
        SELECT m.id, m.entry_id, m.position, m.kind, m.blob_id, b.size, m.filename, m.mime, m.duration,
               m.transcript, m.segments, m.deleted, m.transcriber, m.transcribed_to
        FROM media m JOIN blobs b ON b.id = m.blob_id
        """

    /// An attachment to show: not deleted, and its bytes known. A record whose blob field no
    /// change has set yet still waits on the merge's anchor blob (a damaged or hand-made log
    /// can leave it so for good): there is nothing to show, export or transcribe.
    private static let shownMedia = "m.deleted = 0 AND m.blob_id <> '\(Writer.anchorBlob)'"

    /// The live entry `id` with its tags and media, or nil.
    public func entry(id: String) throws -> Entry? {
        guard let stored = try storedEntry(id: id), !stored.deleted else { return nil }
        return stored.entry
    }

    func storedEntry(id: String) throws -> StoredEntry? {
        guard var stored = try database.cached(Self.entryColumns + " WHERE e.id = ?").first([.text(id)], Self.readEntry) else {
            return nil
        }
        try attachDetails(&stored.entry)
        return stored
    }

    func storedMedia(id: String) throws -> StoredMedia? {
        try database.cached(Self.mediaColumns + " WHERE m.id = ?").first([.text(id)], Self.readMedia)
    }

    /// Live entries matching `filter`, ordered by (created instant, id).
    public func entries(matching filter: EntryFilter = EntryFilter()) throws -> [Entry] {
        var result: [Entry] = []
        try forEachEntry(matching: filter) { result.append($0) }
        return result
    }

    /// Calls `body` for each live entry matching `filter` in (created instant, id) order —
    /// or, with `localTimeOrder`, in the order of the wall-clock time each was written at
    /// (its date and time at its own offset, then instant, then id) — without holding them
    /// all in memory.
    /// With `newestFirst`, the newest come first; `limit` keeps the first so many of that order.
    package func forEachEntry(matching filter: EntryFilter = EntryFilter(), localTimeOrder: Bool = false, newestFirst: Bool = false,
                             limit: Int? = nil, _ body: (Entry) throws -> Void) throws {
        let (conditions, values) = try conditions(filter)
        var sql = Self.entryColumns + " WHERE e.deleted = 0" + conditions
        // `created` is RFC 3339 with the writer's offset: its first 19 characters are the local
        // date and time, which sort as text.
        let order = newestFirst ? " DESC" : ""
        sql += (localTimeOrder ? " ORDER BY substr(e.created, 1, 19)\(order), " : " ORDER BY ") + "e.created_us\(order), e.id\(order)"
        if let limit { sql += " LIMIT \(max(0, limit))" }
        // A separate statement: `body` may itself read entries through the cached ones.
        let statement = try database.prepare(sql)
        try statement.forEach(values) { row in
            var entry = Self.readEntry(row).entry
            try attachDetails(&entry)
            try body(entry)
        }
    }

    /// `filter` as SQL conditions on `e` (an entry) and `j` (its journal), each beginning
    /// with ` AND`, and their values. Journal names and tags are matched whatever their case
    /// and Unicode form, as note apps match tags: `--tag travel` finds #Travel, and a name
    /// typed in NFC finds one a Mac wrote in NFD. Each stays as it was written.
    /// - Throws: `notFound` for a journal no journal's name matches.
    func conditions(_ filter: EntryFilter) throws -> (String, [SQLValue]) {
        var sql = ""
        var values: [SQLValue] = []
        func placeholders(_ names: [String]) -> String {
            values += names.map { .text($0) }
            return "(" + names.map { _ in "?" }.joined(separator: ", ") + ")"
        }
        if !filter.journals.isEmpty {
            let names = try journalNames()
            var matched: [String] = []
            for wanted in filter.journals { matched += try journals(named: wanted, among: names) }
            sql += " AND j.name IN " + placeholders(matched)
        }
        if !filter.tags.isEmpty {
            let known = try distinctTags()
            for tag in filter.tags {
                let forms = known.filter { Self.isTag($0, within: tag) }
                sql += forms.isEmpty ? " AND 0" : " AND EXISTS (SELECT 1 FROM entry_tags t WHERE t.entry_id = e.id AND t.tag IN " + placeholders(forms) + ")"
            }
        }
        if let from = filter.from {
            sql += " AND e.created_us >= ?"
            values.append(.integer(from.microseconds))
        }
        if let to = filter.to {
            sql += " AND e.created_us <= ?"
            values.append(.integer(to.microseconds))
        }
        if filter.starredOnly { sql += " AND e.starred = 1" }
        if let monthDay = filter.monthDay {
            // `created` is RFC 3339 at the writer's offset: characters 6–10 are its MM-DD.
            sql += " AND substr(e.created, 6, 5) = ?"
            values.append(.text(monthDay))
        }
        return (sql, values)
    }

    /// The journal a person means by the name `typed`: a journal written in another case or
    /// Unicode form (`travel` for Travel) when it is the only such one, else `typed` as it is
    /// (a new journal). For names typed on a command line; an import's or a merge's journal
    /// names are kept exactly, as each journal's id is made from its name.
    package func journalName(typed: String) throws -> String {
        Self.spelling(typed, among: try journalNames())
    }

    /// The one of `names` that `typed` means in another case or Unicode form, when it is the
    /// only such one; else `typed` (it is one of them as written, or a new name).
    static func spelling(_ typed: String, among names: [String]) -> String {
        guard !names.contains(where: { $0.utf8.elementsEqual(typed.utf8) }) else { return typed }
        let like = names.filter { sameName($0, typed) }
        return like.count == 1 ? like[0] : typed
    }

    /// The tag a person means by `typed` (`#Travel`, `travel`): a tag written in another case
    /// or Unicode form when it is the only such one, else `typed` as it is (a new tag); as
    /// `journalName(typed:)` does for journals.
    package func tagName(typed: String) throws -> String {
        let name = try Self.typedTag(typed)
        if try database.cached("SELECT 1 FROM entry_tags WHERE tag = ? LIMIT 1").first([.text(name)], { _ in true }) == true { return name }
        return Self.spelling(name, among: try distinctTags())
    }

    /// The names of the journals there are, by name: a deleted one that another device wrote
    /// an entry in meanwhile is still there.
    func journalNames() throws -> [String] {
        try database.cached("""
            SELECT name FROM journals j
            WHERE deleted = 0 OR EXISTS (SELECT 1 FROM entries e WHERE e.journal_id = j.id AND e.deleted = 0) ORDER BY name
            """).rows { $0.text(0) }
    }

    /// Two names one person means as one: equal once lower-cased, in any Unicode form
    /// (Swift compares strings by canonical equivalence).
    static func sameName(_ a: String, _ b: String) -> Bool {
        a == b || a.lowercased() == b.lowercased()
    }

    /// Whether `tag` is `wanted` (as `sameName` takes it) or nested in it, as Obsidian nests
    /// tags: #travel/italy is a #travel tag too.
    static func isTag(_ tag: String, within wanted: String) -> Bool {
        sameName(tag, wanted) || tag.lowercased().hasPrefix(wanted.lowercased() + "/")
    }

    /// Every tag written on any entry, each spelling once. Read a spelling at a time through
    /// the tag index (a seek past the last one found), not by visiting every row: a journal
    /// holds hundreds of tags on a hundred thousand entries.
    func distinctTags() throws -> [String] {
        let next = try database.cached("SELECT tag FROM entry_tags WHERE tag > ? ORDER BY tag LIMIT 1")
        var tags: [String] = []
        while let tag = try next.first([.text(tags.last ?? "")], { $0.text(0) }) { tags.append(tag) }
        return tags
    }

    private func attachDetails(_ entry: inout Entry) throws {
        entry.tags = try database.cached("SELECT tag FROM entry_tags WHERE entry_id = ? ORDER BY tag")
            .rows([.text(entry.id)]) { $0.text(0) }
        entry.media = try database.cached(Self.mediaColumns + " WHERE m.entry_id = ? AND " + Self.shownMedia + " ORDER BY m.position, m.id")
            .rows([.text(entry.id)]) { Self.readMedia($0).media }
    }

    private static func readEntry(_ row: Statement) -> StoredEntry {
        let created = Timestamp(rfc3339: row.text(4)) ?? Timestamp(microseconds: row.int(5), offsetSeconds: 0)
        let modified = Timestamp(rfc3339: row.text(6)) ?? created
        var location: Location?
        if let latitude = row.optionalDouble(8), let longitude = row.optionalDouble(9) {
            location = Location(latitude: latitude, longitude: longitude, name: row.optionalText(10))
        }
        let entry = Entry(id: row.text(0), journal: row.text(1), title: row.text(2), body: row.text(3),
                          created: created, modified: modified, tags: [], starred: row.int(7) != 0,
                          location: location, media: [])
        return StoredEntry(entry: entry, deleted: row.int(11) != 0)
    }

    private static func readMedia(_ row: Statement) -> StoredMedia {
        let media = Media(id: row.text(0), entryID: row.text(1), position: Int(row.int(2)),
                          kind: MediaKind(name: row.text(3)) ?? .file, blobID: row.text(4), size: row.int(5),
                          filename: row.text(6), mime: row.text(7), duration: row.optionalDouble(8),
                          transcript: row.text(9), segments: (try? JSONValue.parseSegments(row.text(10))) ?? [],
                          transcriber: row.text(12), transcribedTo: row.optionalDouble(13))
        return StoredMedia(media: media, deleted: row.int(11) != 0)
    }

    /// The live voice and video notes a transcription run should take: those with no
    /// transcript at all and those whose machine draft is unfinished, oldest entries first.
    /// A transcript the user wrote, and a finished draft (even an empty one: no speech), are left.
    package func pendingTranscriptions() throws -> [Media] {
        let sql = Self.mediaColumns + """
             JOIN entries e ON e.id = m.entry_id
            WHERE \(Self.shownMedia) AND e.deleted = 0 AND m.kind IN ('voice', 'video')
              AND ((m.transcript = '' AND m.transcriber = '') OR (m.transcriber <> '' AND m.transcribed_to IS NOT NULL))
            ORDER BY e.created_us, m.entry_id, m.position
            """
        return try database.prepare(sql).rows { Self.readMedia($0) }.map(\.media)
    }

    /// The live media record `id`, or nil.
    public func media(id: String) throws -> Media? {
        guard let stored = try storedMedia(id: id), !stored.deleted else { return nil }
        return stored.media
    }

    /// The file holding an attachment's bytes on this machine: there once the attachment was
    /// made here, or a sync or restore brought it.
    public func file(of media: Media) -> String {
        blobs.path(for: media.blobID)
    }

    /// What an id or id prefix names.
    package enum Resolved: Equatable, Sendable {
        case entry(String)
        case media(String)
    }

    /// Resolves a full id or a unique prefix of at least 8 characters among live entries
    /// and media.
    /// - Throws: `.invalid` for a short or malformed prefix, `.notFound`, `.ambiguous`.
    package func resolve(_ prefix: String, allowing kinds: Set<RecordKind> = [.entry, .media]) throws -> Resolved {
        let key = prefix.lowercased()
        guard key.utf8.count >= 8, key.utf8.count <= 36,
              key.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) || $0 == 45 }) else {
            throw StoreError(.invalid, detail: "'\(prefix)' is not an id (a UUID or a prefix of at least 8 characters)")
        }
        var found: [Resolved] = []
        let pattern: [SQLValue] = [.text(key), .text(key + "\u{10FFFF}")]
        if kinds.contains(.entry) {
            found += try database.cached("SELECT id FROM entries WHERE id >= ? AND id < ? AND deleted = 0 LIMIT 3")
                .rows(pattern) { Resolved.entry($0.text(0)) }
        }
        if kinds.contains(.media) {
            found += try database.cached("SELECT id FROM media WHERE id >= ? AND id < ? AND deleted = 0 LIMIT 3")
                .rows(pattern) { Resolved.media($0.text(0)) }
        }
        guard let first = found.first else {
            let what = kinds == [.media] ? "attachment" : kinds == [.entry] ? "entry" : "entry or attachment"
            throw StoreError(.notFound, detail: "no \(what) with id \(prefix)")
        }
        guard found.count == 1 else {
            throw StoreError(.ambiguous, detail: "id prefix \(prefix) matches more than one record; give more characters")
        }
        return first
    }

    /// Concurrent edits kept as revisions and not dismissed, newest first: one for each text
    /// a field lost that it does not hold now. Every device keeps every losing write that no
    /// write names as replaced, whatever its text; which are listed is decided from what all
    /// of them hold alike (the field's value, the newest of a text), so every device lists
    /// the same conflicts under the same ids.
    public func conflicts() throws -> [Revision] {
        let kept = try database.prepare("""
            SELECT r.record, r.record_id, r.field, r.value, r.hlc, d.id FROM revisions r JOIN devices d ON d.num = r.device
            WHERE r.dismissed = 0 ORDER BY r.hlc DESC, d.id
            """)
            .rows { Revision(record: $0.text(0), recordID: $0.text(1), field: $0.text(2), value: $0.text(3),
                             hlc: HLC(rawValue: $0.int(4)), device: $0.text(5)) }
        var listed: [Revision] = [], seen = Set<[String]>(), current: [String: [String: JSONValue]] = [:]
        for revision in kept where seen.insert([revision.record, revision.recordID, revision.field, revision.value]).inserted {
            guard let kind = RecordKind(rawValue: revision.record) else { continue }
            let values = try current[revision.record + "/" + revision.recordID] ?? fieldValues(kind, revision.recordID)
            current[revision.record + "/" + revision.recordID] = values
            if (values[revision.field]?.string ?? "") != revision.value { listed.append(revision) }
        }
        return listed
    }

    /// Field clocks written after `clock`, as (record, id, field) sorted — what changed.
    package func changes(since clock: HLC) throws -> [FieldChange] {
        try database.prepare("""
            SELECT c.record, c.record_id, c.field, c.hlc, d.id FROM field_clocks c JOIN devices d ON d.num = c.device
            WHERE c.hlc > ? ORDER BY c.record, c.record_id, c.field
            """)
            .rows([.integer(clock.rawValue)]) {
                FieldChange(record: $0.text(0), recordID: $0.text(1), field: $0.text(2), hlc: HLC(rawValue: $0.int(3)), device: $0.text(4))
            }
    }

    /// Number of live entries.
    public func entryCount() throws -> Int {
        Int(try database.cached("SELECT count(*) FROM entries WHERE deleted = 0").first { $0.int(0) } ?? 0)
    }
}

/// One field of one record written at `hlc` by `device`.
package struct FieldChange: Equatable, Sendable {
    package var record: String
    package var recordID: String
    package var field: String
    package var hlc: HLC
    package var device: String
}

extension Store {
    /// Every tag of a live entry with how many entries carry it, most used first (then by
    /// name). Spellings a filter takes as one (#Sea and #sea) are counted as one, under the
    /// spelling most used, as `--tag` finds them.
    public func tagCounts() throws -> [(name: String, count: Int)] {
        let rows = try database.prepare("""
            SELECT t.tag, count(*) FROM entry_tags t JOIN entries e ON e.id = t.entry_id
            WHERE e.deleted = 0 GROUP BY t.tag ORDER BY count(*) DESC, t.tag
            """).rows { ($0.text(0), Int($0.int(1))) }
        return Self.countedAsOne(rows).sorted { $0.count != $1.count ? $0.count > $1.count : $0.name < $1.name }
    }

    /// Every journal that holds a live entry with how many it holds, by name; names a filter
    /// takes as one are counted as one, as for tags.
    public func journalCounts() throws -> [(name: String, count: Int)] {
        let rows = try database.prepare("""
            SELECT j.name, count(*) FROM entries e JOIN journals j ON j.id = e.journal_id
            WHERE e.deleted = 0 GROUP BY j.name ORDER BY count(*) DESC, j.name
            """).rows { ($0.text(0), Int($0.int(1))) }
        return Self.countedAsOne(rows).sorted { $0.name < $1.name }
    }

    /// `rows` (most used first) with the names `sameName` takes as one summed under the
    /// first of them.
    private static func countedAsOne(_ rows: [(String, Int)]) -> [(name: String, count: Int)] {
        var merged: [(name: String, count: Int)] = []
        var index: [String: Int] = [:]  // keyed by the lower-cased name; String compares canonically
        for (name, count) in rows {
            let key = name.lowercased()
            if let at = index[key] {
                merged[at].count += count
            } else {
                index[key] = merged.count
                merged.append((name, count))
            }
        }
        return merged
    }
}
