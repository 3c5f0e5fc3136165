extension Database {
    /// Runs `body` without the indexes `names` (those the database has), then makes them
    /// again from their own definitions. Inside a transaction only: should `body` throw,
    /// the rollback brings them back, as it does after a crash.
    ///
    /// An index kept up row by row takes each row's key to its place in a B-tree wider than
    /// the page cache; made at the end, it sorts the keys once and writes its pages in order.
    /// 100,000 entries imported into an empty store without three of them (`bench/store`'s
    /// journal, release, five alternating pairs): 6.8-8.3 s against 7.8-8.6 s (medians 7.7
    /// and 8.4), making them at the end included.
    func withoutIndexes<T>(_ names: [String], _ body: () throws -> T) throws -> T {
        let definitions = try dropIndexes(names)
        let result = try body()
        try makeIndexes(definitions)
        return result
    }

    /// Drops the indexes `names` the database has; returns their definitions, for
    /// `makeIndexes`. Inside a transaction only.
    func dropIndexes(_ names: [String]) throws -> [String] {
        let definition = try prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?")
        var definitions: [String] = []
        for name in names {
            guard let sql = try definition.first([.text(name)], { $0.text(0) }) else { continue }
            definitions.append(sql)
            try execute("DROP INDEX \"\(name)\"")
        }
        return definitions
    }

    /// Makes indexes again from the definitions `dropIndexes` returned.
    func makeIndexes(_ definitions: [String]) throws {
        for sql in definitions { try execute(sql) }
    }
}
