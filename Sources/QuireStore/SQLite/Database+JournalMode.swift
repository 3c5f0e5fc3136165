import CSQLite

extension Database {
    /// Runs `body` under a rollback journal rather than the write-ahead log when no other
    /// connection has the database open, and as it is when one has (it may be reading).
    ///
    /// In the log, a transaction larger than the page cache writes every page twice: into
    /// the log, then into the database when the log is copied back. Under a rollback journal
    /// a page the database did not hold before the transaction is written once, and only the
    /// pages it held are copied aside first. 100,000 entries imported into an empty store
    /// (`bench/store`'s journal, release, three alternating pairs): 10.2-10.7 s against
    /// 11.8-11.9 s. Synchronous is `EXTRA` meanwhile: `FULL` does not flush the folder after
    /// the journal is deleted, and that deletion is what commits.
    ///
    /// The log is back when `body` returns or throws. Were it refused (another connection came
    /// meanwhile), the database stays consistent under its rollback journal, and the next
    /// opening of the store brings the log back.
    func withRollbackJournal<T>(_ body: () throws -> T) throws -> T {
        // Within another call: the outer one puts the log back.
        guard try journalMode != "delete" else { return try body() }
        guard try setJournalMode("delete", waiting: false) else { return try body() }
        defer {
            try? execute("PRAGMA synchronous = FULL")
            _ = try? setJournalMode("wal", waiting: true)
        }
        try execute("PRAGMA synchronous = EXTRA")
        return try body()
    }

    /// This connection's journal mode: "wal", or "delete" within `withRollbackJournal`.
    var journalMode: String {
        get throws { try prepare("PRAGMA journal_mode").first([]) { $0.text(0) } ?? "" }
    }

    /// Asks for journal mode `mode`; whether the database is in it afterwards. Leaving the
    /// log needs every other connection gone; without `waiting`, one open is an answer, not
    /// a wait of the busy timeout.
    private func setJournalMode(_ mode: String, waiting: Bool) throws -> Bool {
        if !waiting { sqlite3_busy_timeout(handle, 0) }
        defer { if !waiting { sqlite3_busy_timeout(handle, busyTimeoutMilliseconds) } }
        do {
            return try prepare("PRAGMA journal_mode = \(mode)").first([]) { $0.text(0) } == mode
        } catch let error as StoreError where error.kind == .busy {
            return false
        }
    }
}

extension Database {
    /// How many of this database's pages hold `bytes` (at least one): what SQLite's settings
    /// counted in pages are given as, whatever the page size.
    func pages(of bytes: Int) throws -> Int {
        let size = try prepare("PRAGMA page_size").first([]) { $0.int(0) } ?? 4096
        return max(1, bytes / Int(max(512, size)))
    }
}
