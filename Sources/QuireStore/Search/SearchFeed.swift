import CSQLite
import Foundation
import QuireSupport

/// The search rows of a whole journal, read and tokenized on a second thread while this one
/// writes them into FTS5: a restore's index build. Reading `search_source` (each body made
/// plain text, each entry's tags and transcripts gathered) and tokenizing took 1.3 of the
/// build's 5.5 s at 100,000 entries, on one core while the other waited. A second,
/// read-only connection reads the rows in rowid order, a few hundred at a time, at most
/// `depth` batches ahead; the writing connection inserts each row with the values read and,
/// when FTS5 asks its tokenizer for a column, hands over the tokens made for it
/// (`replay`): the same tokens, for the same bytes, as its own tokenizer would make.
final class SearchFeed {
    /// One search row: its texts as they will be bound, and each one's tokens.
    struct Row: Sendable {
        let rowid: Int64
        let columns: [Tokenized]
    }

    /// A text and the tokens the tokenizer makes of it as a document.
    struct Tokenized: Sendable {
        let text: [UInt8]
        /// The tokens' bytes, one after another.
        let bytes: [UInt8]
        /// Each token: where its bytes end in `bytes`, where it starts and ends in `text`, and
        /// whether it shares the place of the token before (a CJK bigram's single character).
        let tokens: [(end: Int32, start: Int32, stop: Int32, colocated: Bool)]
    }

    /// The reading thread stopped: it could not open the store or read a row.
    struct Failure: Error {
        let reason: any Error
    }

    /// The columns of `search`, in the order FTS5 tokenizes them.
    static let columns = ["title", "body", "transcripts", "tags", "place"]
    /// What the index is built from: every row of `search_source`, in rowid order.
    static let source = "SELECT rowid, " + columns.joined(separator: ", ") + " FROM search_source ORDER BY rowid"
    /// One row into the index: its rowid, then its texts (`Statement.run(_:texts:)`).
    static let insert = "INSERT INTO search (rowid, " + columns.joined(separator: ", ") + ") VALUES (?"
        + String(repeating: ", ?", count: columns.count) + ")"

    private let rows: ReadAhead<[Row]>
    /// Where the texts come from when this thread reads them itself (`init(texts:)`).
    private let input: Handoff<[Texts]>?
    private var batch: [Row] = []
    private var next = 0
    /// The texts of the row being inserted, in column order, for `replay`.
    private var pending: ArraySlice<Tokenized> = []

    /// Starts reading the store at `path` on a thread of its own. The caller holds the write
    /// lock already (`BEGIN IMMEDIATE`), so what is read is what it would read itself.
    init(path: String, depth: Int = 8, batchSize: Int = 256) {
        input = nil
        rows = ReadAhead(depth: depth) { put in
            let database = try Database(path: path, create: false, readOnly: true, busyTimeoutMilliseconds: 5000)
            try database.registerFunctions()
            let cache = QuireTokenizer.Cache()
            var batch: [Row] = []
            batch.reserveCapacity(batchSize)
            try database.prepare(Self.source).forEach { row in
                batch.append(Row(rowid: row.int(0), columns: (1...Int32(Self.columns.count)).map { Self.tokenized(row.bytes($0), cache: cache) }))
                if batch.count == batchSize {
                    try put(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if !batch.isEmpty { try put(batch) }
        }
    }

    /// A search row's texts, read but not yet tokenized.
    struct Texts: Sendable {
        let rowid: Int64
        var columns: [[UInt8]]
    }

    /// Tokenizes on a thread of its own the rows this thread reads itself and sends to
    /// `texts`: an import's rows, which another connection cannot read before they are
    /// committed. Closing `texts` (`finish`) ends the rows.
    init(texts: Handoff<[Texts]>, depth: Int = 8) {
        input = texts
        rows = ReadAhead(depth: depth) { put in
            let cache = QuireTokenizer.Cache()
            while let batch = texts.receive() {
                try put(batch.map { Row(rowid: $0.rowid, columns: $0.columns.map { Self.tokenized($0, cache: cache) }) })
            }
        }
    }

    deinit {
        input?.cancel()  // the thread may be waiting for texts
        rows.stop()
    }

    /// The next row to insert, its texts then awaited by `replay`; nil after the last.
    /// - Throws: what stopped the reading thread.
    func nextRow() throws -> Row? {
        if next == batch.count {
            guard let more = try rows.next() else { return nil }
            (batch, next) = (more, 0)
        }
        guard next < batch.count else { return nil }
        let row = batch[next]
        next += 1
        pending = row.columns[...]
        return row
    }

    /// Emits the tokens made for `text` when it is the next text of the row being inserted
    /// (FTS5 asks for the columns in order, the empty ones not at all); nil, with nothing
    /// emitted, for any other text, which the tokenizer then reads itself.
    func replay(_ text: UnsafeBufferPointer<UInt8>, emit: (UnsafeBufferPointer<UInt8>, Int, Int, Bool) -> Int32) -> Int32? {
        while let first = pending.first, first.text.isEmpty { pending = pending.dropFirst() }
        guard let first = pending.first, first.text.count == text.count,
              first.text.withUnsafeBufferPointer({ kept in
                  guard let a = kept.baseAddress, let b = text.baseAddress else { return false }
                  return memcmp(a, b, text.count) == 0
              }) else { return nil }
        pending = pending.dropFirst()
        return first.bytes.withUnsafeBufferPointer { bytes in
            var start = 0
            for token in first.tokens {
                let end = Int(token.end)
                let rc = emit(UnsafeBufferPointer(rebasing: bytes[start..<end]), Int(token.start), Int(token.stop), token.colocated)
                if rc != SQLITE_OK { return rc }
                start = end
            }
            return SQLITE_OK
        }
    }

    private static func tokenized(_ text: [UInt8], cache: QuireTokenizer.Cache) -> Tokenized {
        var bytes: [UInt8] = [], tokens: [(end: Int32, start: Int32, stop: Int32, colocated: Bool)] = []
        guard !text.isEmpty else { return Tokenized(text: text, bytes: bytes, tokens: tokens) }
        bytes.reserveCapacity(text.count)
        _ = text.withUnsafeBufferPointer { buffer in
            QuireTokenizer.tokenize(buffer, mode: .document, cache: cache) { token, start, stop, colocated in
                bytes.append(contentsOf: token)
                tokens.append((Int32(bytes.count), Int32(start), Int32(stop), colocated))
                return SQLITE_OK
            }
        }
        return Tokenized(text: text, bytes: bytes, tokens: tokens)
    }
}
