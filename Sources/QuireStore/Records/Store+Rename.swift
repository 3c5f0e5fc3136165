import Foundation

/// What renaming a journal or a tag did.
public struct Renamed: Sendable, Equatable {
    /// The names that went, as they were written (a name in several cases is several).
    public var from: [String]
    /// The name they became.
    public var to: String
    /// Entries changed.
    public var entries: Int
    /// Entries that already had the new name (a merge into an existing journal or tag).
    public var alreadyThere: Int
    /// Tags nested in the renamed one that moved with it, old name to new
    /// (`travel/italy` → `trips/italy`).
    public var nested: [String: String] = [:]
}

extension Store {
    /// Moves every entry of journal `old` into `new`: `old` is matched as `--journal` matches
    /// (any case, any Unicode form), so `renameJournal("travel", to: "Travel")` also makes one
    /// journal of two that differ only in case. A `new` journal that exists takes the entries
    /// in (a merge); one that differs from an existing journal only in case is that journal.
    /// Each entry's change syncs as `edit --journal` does; the journals left empty are deleted.
    /// One transaction.
    /// - Throws: `.notFound` when no journal is named `old`, `.invalid` for a bad new name.
    public func renameJournal(_ old: String, to new: String, progress: ProgressHandler? = nil) throws -> Renamed {
        let names = try journalNames()
        let from = try journals(named: old, among: names)
        var target = try Self.cleanName(new, what: "journal name")
        if !from.contains(where: { Self.sameName($0, target) }) { target = try journalName(typed: target) }
        let moving = from.filter { !$0.utf8.elementsEqual(target.utf8) }
        let already = try liveEntries(inJournals: [target]).count
        return try write { writer in
            let ids = try liveEntries(inJournals: moving)
            try change(ids, with: writer, progress: progress) { entry in entry.journal = target }
            for name in moving { try writer.deleteJournal(named: name) }
            return Renamed(from: moving, to: target, entries: ids.count, alreadyThere: already)
        }
    }

    /// Renames tag `old` (`#old` or `@old` as typed, any case) to `new` on every entry that
    /// carries it, and the tags nested in it with it (`travel/italy` becomes `trips/italy`);
    /// an entry that also carries `new` keeps it once. Syncs as `edit
    /// --remove-tag/--add-tag` does. One transaction.
    /// - Throws: `.notFound` when no entry carries `old`, `.invalid` for a bad new tag.
    public func renameTag(_ old: String, to new: String, progress: ProgressHandler? = nil) throws -> Renamed {
        let wanted = try Self.typedTag(old)
        let tags = try distinctTags()
        var target = try Self.typedTag(new)
        // A new name in another case than a tag there is, is that tag (unless it is the case
        // of the renamed one being changed).
        if !Self.sameName(target, wanted) { target = Self.spelling(target, among: tags) }
        var renamed: [String: String] = [:]  // each tag that goes, and what it becomes
        for tag in tags where Self.isTag(tag, within: wanted) {
            // A nested tag keeps what follows its parent: after the parent's characters and "/".
            let nested = Self.sameName(tag, wanted) ? "" : String(tag.dropFirst(wanted.count))
            renamed[tag] = try Self.cleanName(target + nested, what: "tag")
        }
        guard !renamed.isEmpty else {
            throw StoreError(.notFound, detail: "no entry is tagged #\(wanted)")
        }
        renamed = renamed.filter { !$0.key.utf8.elementsEqual($0.value.utf8) }
        let moving = renamed.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let already = try liveEntries(taggedWith: [target]).count
        return try write { writer in
            let ids = try liveEntries(taggedWith: moving)
            try change(ids, with: writer, progress: progress) { entry in
                // The new names first: where the entry had one already in another case, it goes.
                entry.tags = try Self.cleanTags(Self.distinctNames(entry.tags.compactMap { renamed[$0] } + entry.tags.filter { renamed[$0] == nil }))
            }
            return Renamed(from: moving.filter { Self.sameName($0, wanted) }, to: target, entries: ids.count, alreadyThere: already,
                           nested: renamed.filter { !Self.sameName($0.key, wanted) })
        }
    }

    /// Applies `body` to each entry of `ids` and saves it as an edit does (every entry
    /// reindexed: some 0.2 ms each), telling `progress` every 500.
    private func change(_ ids: [String], with writer: Writer, progress: ProgressHandler?, _ body: (inout Entry) throws -> Void) throws {
        for (done, id) in ids.enumerated() {
            if done % 500 == 0 { progress?(Int64(done), Int64(ids.count)) }
            guard let stored = try storedEntry(id: id) else { continue }
            var entry = stored.entry
            try body(&entry)
            entry.modified = Timestamp.now(clock: clock.now)
            try writer.save(entry, previous: stored)
        }
        if !ids.isEmpty { progress?(Int64(ids.count), Int64(ids.count)) }
    }

    /// The journals among `names` that `wanted` names, as a filter matches them.
    /// - Throws: `.notFound` naming the journals there are (at most twelve) when none is.
    func journals(named wanted: String, among names: [String]) throws -> [String] {
        let found = names.filter { Self.sameName($0, wanted) }
        guard found.isEmpty else { return found }
        let shown = names.prefix(12).joined(separator: ", ") + (names.count > 12 ? " and \(names.count - 12) more" : "")
        throw StoreError(.notFound, detail: "no journal named \"\(wanted)\"" + (names.isEmpty ? "" : " (the journals: \(shown))"))
    }

    private func liveEntries(inJournals names: [String]) throws -> [String] {
        guard !names.isEmpty else { return [] }
        return try database.prepare("""
            SELECT e.id FROM entries e JOIN journals j ON j.id = e.journal_id
            WHERE e.deleted = 0 AND j.name IN (\(names.map { _ in "?" }.joined(separator: ", "))) ORDER BY e.id
            """).rows(names.map { .text($0) }) { $0.text(0) }
    }

    private func liveEntries(taggedWith tags: [String]) throws -> [String] {
        guard !tags.isEmpty else { return [] }
        return try database.prepare("""
            SELECT DISTINCT e.id FROM entry_tags t JOIN entries e ON e.id = t.entry_id
            WHERE e.deleted = 0 AND t.tag IN (\(tags.map { _ in "?" }.joined(separator: ", "))) ORDER BY e.id
            """).rows(tags.map { .text($0) }) { $0.text(0) }
    }
}
