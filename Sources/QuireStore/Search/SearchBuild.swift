import Foundation
import QuireSupport

/// A first import's search index, built on a second thread while the import writes its
/// records, in a private temporary database (SQLite deletes its file when it is closed) or
/// in a file of the store's folder attached to the store's connection (`ScratchIndexFile`),
/// then copied into the store in the import's transaction (`Store.installSearch`).
///
/// One connection writes one thing at a time: an import's index came after its records on
/// the same core (at 100,000 entries 5.3 s of refresh after 5.3 s of records, `perf`),
/// while the other core mostly waited. Here the importing thread reads the rows of each
/// thousand new entries as it goes (what `search_source` makes of them, on the connection
/// that holds them uncommitted) and hands them over; this thread tokenizes and indexes them
/// into an FTS5 table made with the store's own definition and settings, and the index's
/// tables are then copied whole. 100,000 entries (`bench/store`'s journal, release, two
/// alternating pairs): 9.68 and 9.72 s against 10.17 and 10.85 s, peak memory 156 MB
/// against 150.
final class SearchBuild {
    /// The scratch database: this thread's until `finish` has joined it.
    private let scratch: Owned<Database>
    private let rows = Handoff<[SearchFeed.Texts]>()
    private let building: ReadAhead<Bool>

    /// Makes the scratch database with the `search` table `store` has (its definition and
    /// settings), and starts the thread that fills it.
    /// How many batches may wait for this thread before `send` waits.
    private let depth: Int

    /// `file`: where the scratch database is made (`ScratchIndexFile`, new or empty), for a
    /// caller that attaches it to copy it (`Store.installSearch(attached:)`); by default a
    /// private temporary one.
    init(like store: Database, depth: Int = 4, file: String = "") throws {
        self.depth = depth
        let scratch = try Database(path: file, create: true, busyTimeoutMilliseconds: 0)
        // A file no one else opens and no crash needs: no journal, no flushes. Its pages are
        // written once and read back once, by the copy: 8 MiB of cache, not 16, took 9 MiB
        // off a 10,000-entry import's peak memory and no time at 100,000 (eight pairs, 0.97×).
        try scratch.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -8192")
        try QuireTokenizer.register(on: scratch)
        try scratch.execute(try Self.definition(in: store))
        try scratch.prepare("INSERT INTO search (search, rank) VALUES (?, ?)")
            .run(eachRowOf: store.prepare("SELECT k, v FROM search_config WHERE k <> 'version'"))
        try scratch.execute("BEGIN")
        let (owned, rows) = (Owned(scratch), self.rows)
        self.scratch = owned
        building = ReadAhead(depth: 1) { _ in
            defer { rows.cancel() }  // a sender waiting for room goes on; `finish` throws
            let insert = try owned.value.prepare(SearchFeed.insert)
            let markdown = SearchFeed.columns.firstIndex(of: Self.markdownColumn)
            while let batch = rows.receive() {
                for var row in batch {
                    if let markdown, markdown < row.columns.count {
                        row.columns[markdown] = row.columns[markdown].withUnsafeBufferPointer { PlainText.of(utf8: $0) }
                    }
                    try insert.run(row.rowid, texts: row.columns)
                }
            }
            try owned.value.execute("COMMIT")  // FTS5 writes out the terms it holds
        }
    }

    deinit {
        rows.cancel()
        building.stop()
    }

    /// `CREATE VIRTUAL TABLE search …` as the store's schema has it.
    static func definition(in database: Database) throws -> String {
        guard let sql = try database.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'search'").first([], { $0.text(0) }) else {
            throw StoreError(.database, path: database.path, detail: "the store has no search index")
        }
        return sql
    }

    /// The column sent as the entry's Markdown, which this thread makes into its words as
    /// `search_source` does (`quire_plain(e.body)`, migrations/0013): at 100,000 entries
    /// about 0.4 s taken off the importing thread, which is the one the import waits on.
    static let markdownColumn = "body"

    /// Rows to index, each rowid above the last sent's, with the entry's Markdown as written
    /// in `markdownColumn`; waits while four batches wait.
    func send(_ batch: [SearchFeed.Texts]) {
        rows.send(batch, waitingBelow: depth)
    }

    /// Waits until every row sent is indexed; the scratch database, holding the index.
    /// - Throws: what stopped the building thread.
    func finish() throws -> Database {
        rows.finish()
        while try building.next() != nil {}
        return scratch.value
    }
}
