import Foundation

extension Writer {
    /// In a first import (`buildsSearchAside`), once `Store.searchRowsTokenizedAside`
    /// entries wait, sends their search rows to be indexed on a second thread (`SearchBuild`)
    /// and takes them off `searchDirty`. An entry whose rowid is not above the last one sent
    /// (one changed again after its row went: a source naming one id twice) stays, for the
    /// refresh at commit to replace in the index copied by then; it is not counted among
    /// the thousand again, so a source naming many ids twice is not listed at every entry.
    func sendSearchRowsAside() throws {
        guard buildsSearchAside, searchDirty.count - searchDirtyHeldBack >= Store.searchRowsTokenizedAside else { return }
        let build = try searchBuild ?? SearchBuild(like: database, file: searchScratch?.path ?? "")
        searchBuild = build
        let sent = try sendRows(of: searchDirty, to: build, after: searchSentThrough)
        searchDirty.subtract(sent.ids)
        searchSentThrough = sent.through
        searchDirtyHeldBack = searchDirty.count
    }

    /// In a new restore's merges, the rows of a segment just merged go to the index's thread
    /// now, not at the commit of a transaction that merges many: the thread keeps pace, and
    /// what it has left once the merges end is a segment's rows, not a transaction's (the
    /// home set's 10,000 entries, 30 ms away: it had 40 % of them left, which the restore
    /// waited 0.13-0.39 s for). A transaction that fails after this spoils the index
    /// (`RestoreIndex.spoiled`), as one that failed at its commit did.
    func sendRestoredRowsSoFar() throws {
        guard !searchDirty.isEmpty, let aside = store.restoreIndex, !aside.spoiled, try store.searchDeferred() else { return }
        try sendRestoredRows(to: aside)
    }

    /// In a new restore's merges (`RestoreIndex`): sends the search rows of the entries this
    /// transaction changed to be indexed on the second thread; those whose row went before
    /// are held back, for the index to be put right at the end.
    func sendRestoredRows(to aside: RestoreIndex) throws {
        let sent = try sendRows(of: searchDirty, to: aside.build, after: aside.sentThrough)
        aside.heldBack.formUnion(searchDirty.subtracting(sent.ids))
        aside.sentThrough = sent.through
        searchDirty.removeAll()
    }

    /// Sends the search rows of entries `ids` whose rowid is above `after` to `build`, in
    /// rising rowid order; the ids sent, and the highest rowid sent. The body goes as
    /// written: what `search_source` makes of it (its words, `quire_plain`) is made on the
    /// building thread (`SearchBuild.send`), off this one. An entry whose journal is still
    /// nameless (its record not merged yet: a log written before pushes sent journals
    /// first) is not sent: its row would lack the name and be indexed twice, once more when
    /// the name comes (`dirtyEntries(ofJournal:)`); it is indexed once, at the end, among
    /// the rows held back. The home set's log written that way, restored over S3 30 ms
    /// away: 3.59 s with every such row indexed twice.
    private func sendRows(of ids: Set<String>, to build: SearchBuild, after: Int64) throws -> (ids: Set<String>, through: Int64) {
        try store.listSearchRows(of: ids)
        let columns = SearchFeed.columns.map { $0 == SearchBuild.markdownColumn ? "e." + $0 : "s." + $0 }
        let rows = try database.cached("""
            SELECT s.rowid, s.id, \(columns.joined(separator: ", "))
            FROM temp.search_dirty d CROSS JOIN search_source s ON s.rowid = d.entry CROSS JOIN entries e ON e.rowid = d.entry
            WHERE d.entry > ? AND NOT EXISTS (SELECT 1 FROM journals j WHERE j.id = e.journal_id AND j.name = '')
            """)
        var batch: [SearchFeed.Texts] = []
        var sent = (ids: Set<String>(), through: after)
        try rows.forEach([.integer(after)]) { row in
            batch.append(SearchFeed.Texts(rowid: row.int(0), columns: (2..<Int32(2 + SearchFeed.columns.count)).map { row.bytes($0) }))
            sent.ids.insert(row.text(1))
            sent.through = row.int(0)
            if batch.count == 256 {
                build.send(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { build.send(batch) }
        try database.execute("DELETE FROM temp.search_dirty")
        return sent
    }
}

extension Store {
    /// The rowids of entries `ids`, into `temp.search_dirty`. By rowid: each changed entry is
    /// found by its rowid (joined by id, the planner walked every entry for one edit), and
    /// the rows reach FTS5 in rising rowid order (a rowid lower than the last one written
    /// makes FTS5 write its pending terms out as a segment).
    func listSearchRows(of ids: Set<String>) throws {
        try database.execute("CREATE TEMP TABLE IF NOT EXISTS search_dirty (entry INTEGER PRIMARY KEY)")
        let insert = try database.cached("INSERT OR IGNORE INTO temp.search_dirty (entry) SELECT rowid FROM entries WHERE id = ?")
        for id in ids { try insert.run([.text(id)]) }
    }

    /// Puts the index's rows of entries `ids` right: each one's row as `search_source` has it
    /// now, or none for an entry deleted.
    func refreshSearchRows(of ids: Set<String>) throws {
        try listSearchRows(of: ids)
        try database.execute("DELETE FROM search WHERE rowid IN (SELECT entry FROM temp.search_dirty)")
        let columns = SearchFeed.columns.joined(separator: ", ")
        let rows = "SELECT s.rowid, \(SearchFeed.columns.map { "s." + $0 }.joined(separator: ", ")) "
            + "FROM temp.search_dirty d CROSS JOIN search_source s ON s.rowid = d.entry"
        if ids.count >= Store.searchRowsTokenizedAside {
            try fillSearch(tokenizingAside: rows)
        } else {
            try database.execute("INSERT INTO search (rowid, \(columns)) " + rows)
        }
        try database.execute("DELETE FROM temp.search_dirty")
    }

    /// Puts the index `scratch` holds (`SearchBuild.finish`) in place of the store's: the
    /// table made anew by its definition, so this connection's FTS5 holds nothing of the old
    /// one in memory, and its tables' rows copied as they are (writing FTS5's own tables
    /// needs SQLite's defensive mode off meanwhile).
    func installSearch(_ scratch: Database) throws {
        try installSearch(tables: try searchTables(in: scratch, schema: "main")) { table in
            let rows = try scratch.prepare("SELECT * FROM \"\(table)\"")
            let marks = Array(repeating: "?", count: Int(rows.columnCount)).joined(separator: ", ")
            try database.prepare("INSERT INTO main.\"\(table)\" VALUES (\(marks))").run(eachRowOf: rows)
        }
    }

    /// The same from a scratch database attached to this connection as `schema`: each table
    /// copied by one `INSERT … SELECT *`, which SQLite carries out page by page without
    /// decoding a row (its transfer optimisation: the tables have the same shape, and the
    /// one written to is empty). 100,000 entries' 185 MB: 0.26 s of a restore's merging thread
    /// against 0.71 s row by row.
    func installSearch(attached schema: String) throws {
        try installSearch(tables: try searchTables(in: database, schema: schema)) { table in
            try database.execute("INSERT INTO main.\"\(table)\" SELECT * FROM \(schema).\"\(table)\"")
        }
    }

    private func searchTables(in database: Database, schema: String) throws -> [String] {
        try database.prepare("SELECT name FROM \(schema).sqlite_master WHERE type = 'table' AND name LIKE 'search\\_%' ESCAPE '\\'")
            .rows([]) { $0.text(0) }
    }

    private func installSearch(tables: [String], copy: (String) throws -> Void) throws {
        let definition = try SearchBuild.definition(in: database)
        try database.execute("DROP TABLE main.search")
        try database.execute(definition)
        try database.configure(Database.defensiveOption, 0)
        defer { try? database.configure(Database.defensiveOption, 1) }
        for table in tables {
            try database.execute("DELETE FROM main.\"\(table)\"")
            try copy(table)
        }
    }
}
