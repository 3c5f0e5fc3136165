import CSQLite
import Foundation
import Testing
@testable import QuireExport
@testable import QuireKit
@testable import QuireStore

/// Every statement sync, restore, search and the exports run, caught as SQLite runs it and
/// asked for its plan (EXPLAIN QUERY PLAN) on a store of a few thousand entries: none reads
/// a whole table of the journal where an index should find its rows. A scan that creeps in
/// grows a step with the journal (100,000 entries: seconds where it was milliseconds); this
/// finds it by the plan, never by the clock. Statements meant to read everything (the
/// exports, a snapshot, a restore's index rebuild) are the named exceptions.
@Suite struct QueryPlanTests {
    /// The SQL each connection prepared and stepped, as written (parameters unbound).
    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var sql: Set<String> = []
        func add(_ text: String) { _ = lock.withLock { sql.insert(text) } }
        var all: [String] { lock.withLock { sql.sorted() } }
    }

    static func watch(_ store: Store, into seen: Seen) {
        let context = Unmanaged.passUnretained(seen).toOpaque()
        sqlite3_trace_v2(store.database.handle, UInt32(SQLITE_TRACE_STMT), { _, context, statement, _ in
            guard let context, let statement, let text = sqlite3_sql(OpaquePointer(statement)) else { return 0 }
            Unmanaged<Seen>.fromOpaque(context).takeUnretainedValue().add(String(cString: text))
            return 0
        }, context)
    }

    /// The journal's tables that grow with it. (The outbox holds what is not pushed yet, read
    /// whole by every push; `sent_segments` this device's segments until a prune, likewise.)
    static let growing = ["entries", "media", "field_clocks", "revisions", "superseded", "entry_tags", "blobs", "journals", "device_names"]

    /// Statements that read a whole table on purpose, by a piece of their text.
    static let wholeTableReads = [
        "coalesce(p.id, '') FROM field_clocks c\nJOIN devices d ON d.num = c.device LEFT JOIN devices p",  // a snapshot
        "FROM revisions r JOIN devices d ON d.num = r.device\nORDER BY r.record",  // a snapshot's kept revisions
        "FROM superseded s JOIN devices d ON d.num = s.device\nORDER BY s.record",  // a snapshot's ancestry
        // A restore's one index build, where its second connection cannot read (that one reads the same).
        SearchFeed.source,
        "SELECT count(*) FROM entries WHERE deleted = 0",  // how many entries there are (status, an export's total)
        "SELECT b.id FROM blobs b WHERE NOT EXISTS",  // a prune's sweep of blob files nothing needs
        "FROM field_clocks c JOIN devices d ON d.num = c.device ORDER BY c.hlc DESC LIMIT 1",  // the newest write, read once per store
        // Kept revisions (conflicts not yet resolved: few) that a merge just learned are ancestors.
        "WHERE r.dismissed = 0 AND EXISTS (SELECT 1 FROM superseded s",
    ]

    /// The plan's lines for `sql`, parameters bound to NULL.
    static func plan(_ sql: String, in store: Store) -> [String]? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(store.database.handle, "EXPLAIN QUERY PLAN " + sql, -1, &statement, nil) == SQLITE_OK, let statement else { return nil }
        defer { sqlite3_finalize(statement) }
        var lines: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            if let detail = sqlite3_column_text(statement, 3) { lines.append(String(cString: detail)) }
        }
        return lines
    }

    /// "SCAN entries" without an index, on a table that grows: the step reads every row. A
    /// plan names a table by its alias ("SCAN e" for `entries e`), in a view's text too.
    static func scans(_ plan: [String], of sql: String, in store: Store) throws -> [String] {
        let names = try growingNames(in: sql, store: store)
        return plan.filter { line in
            guard line.hasPrefix("SCAN "), !line.contains(" USING ") else { return false }
            let table = line.dropFirst(5).split(separator: " ").first.map(String.init) ?? ""
            return names.contains(table)
        }
    }

    /// The growing tables `sql` reads, under their names and aliases, with those of the
    /// views it reads.
    static func growingNames(in sql: String, store: Store) throws -> Set<String> {
        var text = sql
        let views = try store.database.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'view'").rows { ($0.text(0), $0.text(1)) }
        for (name, definition) in views where sql.contains(name) { text += "\n" + definition }
        let keywords: Set<String> = ["where", "join", "on", "left", "cross", "inner", "using", "order", "group", "limit", "set", "values", "union", "natural", "as"]
        var names = Set(growing)
        let pattern = try NSRegularExpression(pattern: #"(?i)\b(?:FROM|JOIN)\s+(?:main\.)?(\w+)(?:\s+(?:AS\s+)?(\w+))?"#)
        let whole = NSRange(text.startIndex..., in: text)
        for match in pattern.matches(in: text, range: whole) {
            guard let tableRange = Range(match.range(at: 1), in: text), growing.contains(String(text[tableRange])),
                  let aliasRange = Range(match.range(at: 2), in: text) else { continue }
            let alias = String(text[aliasRange])
            if !keywords.contains(alias.lowercased()) { names.insert(alias) }
        }
        return names
    }

    @Test func aliasedScansAreFound() throws {
        let dir = TempDir()
        let store = try Store(folder: dir.path + "/s", options: Store.Options(create: true))
        let sql = "SELECT e.id FROM entries e WHERE e.title = ?"
        let plan = try #require(Self.plan(sql, in: store))
        #expect(try Self.scans(plan, of: sql, in: store) == ["SCAN e"])
        let seek = "SELECT e.id FROM entries e WHERE e.id = ?"
        #expect(try Self.scans(try #require(Self.plan(seek, in: store)), of: seek, in: store).isEmpty)
        // Through a view: the full-text source names its entries `e`.
        let view = "SELECT s.id FROM search_source s WHERE s.title = ?"
        #expect(try Self.scans(try #require(Self.plan(view, in: store)), of: view, in: store) == ["SCAN e"])
    }

    @Test func noStepScansATableItShouldSeek() throws {
        let dir = TempDir()
        let folder = try VariedJournal.make(in: dir, generated: 2500)
        let seen = Seen()
        let journal = try Journal(folder: folder)
        Self.watch(journal.store, into: seen)
        // Sync: a first push of everything, an edit, a sync that sends it.
        try journal.setRemote(RemoteAddress(url: "file://" + dir.path + "/repository"))
        try journal.createRepository(passphrase: try secret("pw"), cost: testCost)
        try journal.sync(.cachedKeyOnly)
        let some = try #require(try journal.store.entries().dropFirst(100).first)
        try journal.store.edit(entryID: some.id, EntryEdit(title: "Changed", addTags: ["new"]))
        try journal.sync(.cachedKeyOnly)
        try journal.sync(.cachedKeyOnly)  // nothing to do
        try journal.prune(.cachedKeyOnly)
        // Search: words, a prefix, a phrase, a filter.
        for query in ["day", "Долг*", "\"long day\"", "東京"] { _ = try journal.store.search(query) }
        _ = try journal.store.search("day", filter: EntryFilter(tags: ["voice"]))
        // The exports (the PDF of one month: the same statements, fewer pages).
        try journal.store.exportJSON(to: dir.path + "/dump")
        try journal.exportMarkdown(to: dir.path + "/md")
        try journal.exportBook(to: dir.path + "/book.epub")
        var pdf = PDFOptions()
        pdf.filter = EntryFilter(from: Timestamp(rfc3339: "2025-07-01T00:00:00Z"), to: Timestamp(rfc3339: "2025-07-31T23:59:59Z"))
        try journal.exportPDF(to: dir.path + "/book.pdf", options: pdf)
        // A restore elsewhere, watched too.
        let restored = try Journal(folder: dir.path + "/restored", create: true)
        Self.watch(restored.store, into: seen)
        try restored.restore(from: RemoteAddress(url: "file://" + dir.path + "/repository"), .cachedKeyOr(passphrase: { try secret("pw") }))

        let statements = seen.all
        #expect(statements.count > 40, "the watch saw the work: \(statements.count) statements")
        var problems: [String] = []
        for sql in statements where !Self.wholeTableReads.contains(where: { sql.contains($0) }) {
            guard let plan = Self.plan(sql, in: journal.store) else { continue }  // not plannable here (temp tables, pragmas)
            let scans = try Self.scans(plan, of: sql, in: journal.store)
            if !scans.isEmpty { problems.append(scans.joined(separator: "; ") + "  ←  " + sql.split(whereSeparator: \.isNewline).joined(separator: " ")) }
        }
        #expect(problems.isEmpty, "\(problems.count) statements scan a growing table:\n\(problems.joined(separator: "\n"))")
    }

    /// A new restore merges without the same three indexes and makes them once its merges
    /// are done (`Store.dropIndexesWhileRestoring`): none of its statements may need one.
    @Test func aRestoreSeeksWithoutTheIndexesItMakesAtItsEnd() throws {
        let dir = TempDir()
        let folder = try VariedJournal.make(in: dir, generated: 2500)
        let journal = try Journal(folder: folder)
        try journal.setRemote(RemoteAddress(url: "file://" + dir.path + "/repository"))
        try journal.createRepository(passphrase: try secret("pw"), cost: testCost)
        try journal.sync(.cachedKeyOnly)
        let restored = try Journal(folder: dir.path + "/restored", create: true)
        let seen = Seen()
        Self.watch(restored.store, into: seen)
        try restored.restore(from: RemoteAddress(url: "file://" + dir.path + "/repository"), .cachedKeyOr(passphrase: { try secret("pw") }))
        let statements = seen.all
        #expect(statements.contains { $0.hasPrefix("INSERT INTO field_clocks") }, "the watch saw the merges")
        try restored.store.database.execute("BEGIN")
        defer { try? restored.store.database.execute("ROLLBACK") }
        for name in Store.indexesMadeAfterFirstImport { try restored.store.database.execute("DROP INDEX \(name)") }
        var problems: [String] = []
        for sql in statements where !Self.wholeTableReads.contains(where: { sql.contains($0) }) {
            guard let plan = Self.plan(sql, in: restored.store) else { continue }
            let scans = try Self.scans(plan, of: sql, in: restored.store)
            if !scans.isEmpty { problems.append(scans.joined(separator: "; ") + "  ←  " + sql.split(whereSeparator: \.isNewline).joined(separator: " ")) }
        }
        #expect(problems.isEmpty, "\(problems.count) statements of the restore scan a growing table:\n\(problems.joined(separator: "\n"))")
    }

    /// A first import writes without three of the store's indexes and makes them at its end
    /// (`Store.indexesMadeAfterFirstImport`): none of its statements may need one of them
    /// meanwhile, or it would read a whole table once per entry.
    @Test func aFirstImportSeeksWithoutTheIndexesItMakesAtItsEnd() throws {
        let dir = TempDir()
        try VariedJournal.make(in: dir, generated: 2500)
        let store = try makeStore(dir, name: "first")
        let seen = Seen()
        Self.watch(store, into: seen)
        #expect(try store.importJSONLines(at: dir.path + "/journal/entries.jsonl").entriesAdded > 2500)
        let statements = seen.all
        #expect(statements.count > 10, "the watch saw the import: \(statements.count) statements")
        // Its index, built beside it, went in page by page from the attached file, which is gone.
        #expect(statements.contains { $0.contains("SELECT * FROM \(ScratchIndexFile.schema).\"search_data\"") })
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.folder).allSatisfy { !$0.hasPrefix(ScratchIndexFile.prefix) })
        // Planned as the import ran them: with the indexes away.
        try store.database.execute("BEGIN")
        defer { try? store.database.execute("ROLLBACK") }
        for name in Store.indexesMadeAfterFirstImport { try store.database.execute("DROP INDEX \(name)") }
        var problems: [String] = []
        for sql in statements where !Self.wholeTableReads.contains(where: { sql.contains($0) }) {
            guard let plan = Self.plan(sql, in: store) else { continue }
            let scans = try Self.scans(plan, of: sql, in: store)
            if !scans.isEmpty { problems.append(scans.joined(separator: "; ") + "  ←  " + sql.split(whereSeparator: \.isNewline).joined(separator: " ")) }
        }
        #expect(problems.isEmpty, "\(problems.count) statements of the import scan a growing table:\n\(problems.joined(separator: "\n"))")
    }
}
