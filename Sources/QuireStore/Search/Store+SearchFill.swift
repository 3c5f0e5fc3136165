import Foundation
import QuireSupport

extension Store {
    /// Rows changed by this many entries at once are tokenized on a second thread
    /// (`fillSearch(tokenizingAside:)`); fewer go through one `INSERT … SELECT`.
    static let searchRowsTokenizedAside = 1000

    /// Inserts the rows `select` reads (the rowid, then the columns of `search`, in rising
    /// rowid order) into `search`, their texts tokenized on a second thread while this one
    /// reads the next and inserts those tokenized: at 100,000 entries the tokenizer took
    /// about 1.5 of the refresh's 6.2 s, on one core while the other waited. The rows are
    /// those of this connection's open transaction, which no other connection can read:
    /// this thread reads them and hands their texts over (`SearchFeed(texts:)`).
    func fillSearch(tokenizingAside select: String) throws {
        let texts = Handoff<[SearchFeed.Texts]>()
        let feed = SearchFeed(texts: texts, depth: 2)
        database.tokenizerCache.feed = feed
        defer { database.tokenizerCache.feed = nil }
        let rows = try database.prepare(select)
        let columns = SearchFeed.columns.count
        let insert = try database.prepare(SearchFeed.insert)
        // Two batches read ahead of the inserting (and two tokenized): the second thread
        // always has one, and an import's memory grows by a few MiB, not by tens.
        let batchSize = 256, ahead = 2 * batchSize
        var (sent, inserted, exhausted) = (0, 0, false)
        while true {
            while !exhausted && sent - inserted < ahead {
                var batch: [SearchFeed.Texts] = []
                batch.reserveCapacity(batchSize)
                // Stepped no further once done: SQLite would run the statement again.
                while batch.count < batchSize {
                    guard try rows.step() else {
                        exhausted = true
                        break
                    }
                    batch.append(SearchFeed.Texts(rowid: rows.int(0), columns: (1...Int32(columns)).map { rows.bytes($0) }))
                }
                if !batch.isEmpty {
                    sent += batch.count
                    texts.send(batch)
                }
                if exhausted { texts.finish() }
            }
            guard inserted < sent else { break }
            guard let row = try feed.nextRow() else {
                throw StoreError(.database, path: database.path, detail: "the search index's tokenizing thread ended early")
            }
            try insert.run(row.rowid, texts: row.columns.map(\.text))
            inserted += 1
        }
    }
}
