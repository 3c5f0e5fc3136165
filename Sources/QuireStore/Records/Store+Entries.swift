import Foundation

/// A new entry as a person writes it.
public struct NewEntry: Sendable {
    public var journal: String
    public var title: String
    public var body: String
    public var created: Timestamp?
    public var tags: [String]
    public var starred: Bool
    public var location: Location?

    public init(journal: String = Store.defaultJournal, title: String = "", body: String = "", created: Timestamp? = nil,
                tags: [String] = [], starred: Bool = false, location: Location? = nil) {
        self.journal = journal
        self.title = title
        self.body = body
        self.created = created
        self.tags = tags
        self.starred = starred
        self.location = location
    }
}

/// Changes to an entry; nil leaves a field as it is.
public struct EntryEdit: Sendable {
    public var title: String?
    public var body: String?
    public var created: Timestamp?
    public var journal: String?
    public var addTags: [String] = []
    public var removeTags: [String] = []
    public var starred: Bool?

    public init(title: String? = nil, body: String? = nil, created: Timestamp? = nil, journal: String? = nil,
                addTags: [String] = [], removeTags: [String] = [], starred: Bool? = nil) {
        self.title = title
        self.body = body
        self.created = created
        self.journal = journal
        self.addTags = addTags
        self.removeTags = removeTags
        self.starred = starred
    }
}

extension Store {
    /// The journal an entry goes to when none is named.
    public static let defaultJournal = "Journal"

    /// Validates and normalises a tag or journal name: trimmed, not empty, no control characters.
    static func cleanName(_ name: String, what: String) throws -> String {
        // Plain ASCII names (most tags and journals) are checked byte by byte; the rest
        // through Unicode's properties. Both trim what Foundation's whitespacesAndNewlines does.
        let trimmed: String
        if name.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) {
            let bytes = name.utf8
            let start = bytes.firstIndex { $0 != 0x20 } ?? bytes.endIndex
            let end = bytes.lastIndex { $0 != 0x20 }.map { bytes.index(after: $0) } ?? start
            trimmed = start == bytes.startIndex && end == bytes.endIndex ? name : String(name[start..<max(start, end)])
        } else {
            let scalars = name.unicodeScalars
            let isSpace = { (s: Unicode.Scalar) in s.properties.isWhitespace || (0x0A...0x0D).contains(s.value) || s.value == 0x85 }
            let start = scalars.firstIndex { !isSpace($0) } ?? scalars.endIndex
            let end = scalars.lastIndex { !isSpace($0) }.map { scalars.index(after: $0) } ?? start
            trimmed = String(scalars[start..<max(start, end)])
            guard !trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
                throw StoreError(.invalid, detail: "\(what) contains a control character")
            }
        }
        guard !trimmed.isEmpty else { throw StoreError(.invalid, detail: "\(what) is empty") }
        guard trimmed.utf8.count <= 200 else { throw StoreError(.invalid, detail: "\(what) is longer than 200 bytes") }
        return trimmed
    }

    /// `names` with each one `sameName` takes as an earlier one left out.
    static func distinctNames(_ names: [String]) -> [String] {
        var kept: [String] = []
        for name in names where !kept.contains(where: { sameName($0, name) }) { kept.append(name) }
        return kept
    }

    static func cleanTags(_ tags: [String]) throws -> [String] {
        Array(Set(try tags.map { try cleanName($0, what: "tag") })).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// A tag as a person types it: `@work` (jrnl's habit) and `#work` (everyone else's) are
    /// the tag `work`, as the importers store them; the sigil is not part of the name.
    package static func typedTag(_ tag: String) throws -> String {
        let name = try cleanName(tag, what: "tag")
        guard let first = name.first, first == "@" || first == "#" else { return name }
        return try cleanName(String(name.dropFirst()), what: "tag \"\(name)\"")
    }

    /// The tags written in `text` the way jrnl and most note apps write them: a sigil
    /// (`@` or `#`, as `sigils` allows) at a word's start, then letters, digits, `_` or `-`.
    /// `mail@example.com`, `# Heading` and `@@x` are not tags. In the order first written.
    package static func tags(inText text: String, sigils: String = "@#") -> [String] {
        // Most texts hold no sigil at all: a byte scan says so without the walk by Character.
        let marks = Array(sigils.utf8)
        guard text.utf8.contains(where: marks.contains) else { return [] }
        var found: [String] = []
        var seen = Set<String>()  // a text may hold thousands: no search of `found` for each
        var previous: Character = " "
        var current: String?
        for c in text + " " {
            if current != nil {
                if c.isLetter || c.isNumber || c == "_" || c == "-" {
                    // In place: a new string for each letter made a tag of 400,000 letters
                    // take an import 28 s.
                    current?.append(c)
                } else {
                    if let tag = current, !tag.isEmpty, seen.insert(tag).inserted { found.append(tag) }
                    current = nil
                }
            } else if sigils.contains(c) && (previous.isWhitespace || "([".contains(previous)) {
                current = ""
            }
            previous = c
        }
        return found
    }

    static func checkLocation(_ location: Location?) throws {
        guard let location else { return }
        guard (-90...90).contains(location.latitude), (-180...180).contains(location.longitude) else {
            throw StoreError(.invalid, detail: "location is outside latitude -90…90, longitude -180…180")
        }
    }

    /// Adds an entry, created now unless a date is given.
    /// - Throws: `.invalid` for an empty journal or tag name or an impossible location.
    @discardableResult
    public func add(_ new: NewEntry) throws -> Entry {
        let now = Timestamp.now(clock: clock.now)
        let created = new.created ?? now
        try Self.checkLocation(new.location)
        let entry = Entry(id: StableID.random(), journal: try Self.cleanName(new.journal, what: "journal name"),
                          title: new.title, body: new.body, created: created, modified: now,
                          tags: try Self.cleanTags(Self.distinctNames(new.tags.map(Self.typedTag))), starred: new.starred,
                          location: new.location, media: [])
        try write { try $0.save(entry, previous: nil) }
        return entry
    }

    /// Applies `edit` to entry `id`. Only fields that really change are written (with
    /// `modified` set to now); an edit that changes nothing writes nothing.
    /// - Throws: `.notFound` for an unknown or deleted entry, `.invalid` for bad names.
    @discardableResult
    public func edit(entryID id: String, _ edit: EntryEdit) throws -> Entry {
        try write { writer in
            guard let stored = try storedEntry(id: id), !stored.deleted else {
                throw StoreError(.notFound, detail: "no entry with id \(id)")
            }
            var entry = stored.entry
            if let title = edit.title { entry.title = title }
            if let body = edit.body { entry.body = body }
            if let created = edit.created { entry.created = created }
            if let journal = edit.journal { entry.journal = try Self.cleanName(journal, what: "journal name") }
            if let starred = edit.starred { entry.starred = starred }
            // A tag is removed, and is not added twice, in any case or Unicode form: #Travel
            // is the tag travel, as filters take it.
            let removed = try edit.removeTags.map(Self.typedTag) + edit.removeTags.map { try Self.cleanName($0, what: "tag") }
            entry.tags = entry.tags.filter { tag in !removed.contains { Self.sameName($0, tag) } }
            entry.tags = try Self.cleanTags(Self.distinctNames(entry.tags + edit.addTags.map(Self.typedTag)))
            guard entry != stored.entry else { return entry }
            entry.modified = Timestamp.now(clock: clock.now)
            try writer.save(entry, previous: stored)
            return entry
        }
    }

    /// Deletes an entry (a tombstone that syncs); its attachments go with it.
    /// - Throws: `.notFound` when there is no live entry `id`.
    public func remove(entryID id: String) throws {
        try write { writer in
            guard let stored = try storedEntry(id: id), !stored.deleted else {
                throw StoreError(.notFound, detail: "no entry with id \(id)")
            }
            try writer.deleteEntry(id)
        }
    }

    /// Removes one attachment from its entry.
    public func remove(mediaID id: String) throws {
        try write { writer in
            guard let stored = try storedMedia(id: id), !stored.deleted else {
                throw StoreError(.notFound, detail: "no attachment with id \(id)")
            }
            try writer.deleteMedia(id)
        }
    }
}
