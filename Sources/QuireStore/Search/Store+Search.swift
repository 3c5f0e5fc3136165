import Foundation

/// One search result.
public struct SearchHit: Sendable {
    public var id: String
    public var created: Timestamp
    public var title: String
    /// Context around the match, each matched word between U+0001 and U+0002.
    package var marked: String

    /// Context around the match, each matched word between `open` and `close`; plain text
    /// when both are empty.
    public func snippet(open: String = "", close: String = "") -> String {
        marked.replacingOccurrences(of: "\u{1}", with: open).replacingOccurrences(of: "\u{2}", with: close)
    }
}

extension Store {
    /// Builds an FTS5 query from what a person typed (`SearchQuery`: words, "phrases",
    /// `word*` prefixes, `-word` exclusions, `OR`).
    /// - Throws: `.invalid` when the query has no words to look for.
    static func ftsQuery(_ input: String) throws -> String { try SearchQuery(input).fts() }

    /// Entries whose title, text, transcripts, tags or place hold every word of `query`, of
    /// those `filter` selects, best first (a title counts most, then tags). `query` may hold
    /// "phrases", `word*` prefixes, `-word` exclusions and `OR` (`SearchQuery`).
    public func search(_ query: String, filter: EntryFilter = EntryFilter(), limit: Int = 50) throws -> [SearchHit] {
        let match = try Self.ftsQuery(query)
        let (conditions, values) = try conditions(filter)
        // Words of scripts without spaces are indexed two characters at a time: a snippet
        // of them needs more tokens to show as much text.
        let tokens = query.unicodeScalars.contains { QuireTokenizer.classify($0) == .cjk } ? 40 : 16
        // Rank first, from the index, then read the page's snippets and rows. In one statement
        // SQLite made a snippet (re-tokenising the text) for every match before sorting, and
        // FTS5's own `ORDER BY rank` copies every match's positions into its sorter: 1.6×
        // the time for a common prefix. Without a filter the ranking needs no join: joining
        // every match to its entry and journal first cost 4× the ranking at 100,000 entries.
        let ranking = conditions.isEmpty
            ? "SELECT rowid, bm25(search, 4.0, 1.0, 1.0, 2.0, 1.0) FROM search WHERE search MATCH ?1"
            : "SELECT s.rowid, bm25(search, 4.0, 1.0, 1.0, 2.0, 1.0) FROM search s JOIN entries e ON e.rowid = s.rowid JOIN journals j ON j.id = e.journal_id WHERE search MATCH ?1" + conditions
        let ranked = try database.prepare(ranking + " ORDER BY bm25(search, 4.0, 1.0, 1.0, 2.0, 1.0) LIMIT \(max(1, limit))")
            .rows([.text(match)] + values) { ($0.int(0), $0.double(1)) }
        let marked = try snippets(match, rowids: ranked.map(\.0), tokens: tokens)
        let row = try database.cached("SELECT id, created, created_us, title, body FROM entries WHERE rowid = ?1")
        var hits: [(hit: SearchHit, score: Double, created: Int64)] = []
        for (rowid, score) in ranked {
            guard let snippet = marked[rowid], let found = try row.first([.integer(rowid)], { row -> (SearchHit, Int64) in
                let created = Timestamp(rfc3339: row.text(1)) ?? Timestamp(microseconds: row.int(2), offsetSeconds: 0)
                var title = row.text(3)
                if title.isEmpty {
                    title = Entry(id: "", journal: "", title: "", body: row.text(4), created: created, modified: created,
                                  tags: [], starred: false, location: nil, media: []).displayTitle
                }
                return (SearchHit(id: row.text(0), created: created, title: title, marked: snippet), row.int(2))
            }) else { continue }
            hits.append((found.0, score, found.1))
        }
        // Best first; among equals, the newest.
        return hits.sorted { $0.score != $1.score ? $0.score < $1.score : $0.created > $1.created }.map(\.hit)
    }

    /// The page's snippets in one statement. Matching each row again for its own snippet
    /// cost 0.05 ms for a word but 0.45 ms for a two-character prefix of a script indexed two
    /// characters at a time (Japanese, Chinese), whose terms FTS5 merges anew for every
    /// statement: 9 ms for a page. Here they are merged once, and FTS5 walks the matches
    /// between the page's first and last rowid; `+rowid` keeps the list out of the index, so
    /// that it is not again one lookup per row.
    ///
    /// FTS5's snippet weighs every match in a row against every other: an entry where the
    /// word stands 100,000 times took minutes. Such a row's snippet is its text, every match
    /// marked, cut as every snippet is (`bounded`) around its first match.
    private func snippets(_ match: String, rowids: [Int64], tokens: Int) throws -> [Int64: String] {
        guard let first = rowids.min(), let last = rowids.max() else { return [:] }
        let list = rowids.map(String.init).joined(separator: ",")
        let rows = try database.prepare("""
            SELECT rowid, CASE WHEN quire_hits(search) <= \(Self.maxSnippetHits) THEN snippet(search, -1, char(1), char(2), '…', ?4)
                               ELSE highlight(search, \(Self.bodyColumn), char(1), char(2)) END
            FROM search
            WHERE search MATCH ?1 AND rowid >= ?2 AND rowid <= ?3 AND +rowid IN (\(list))
            """).rows([.text(match), .integer(first), .integer(last), .integer(Int64(tokens))]) {
                ($0.int(0), Self.startingOnABase(Self.bounded($0.text(1), scalars: tokens * 16)))
            }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    /// The most matches in one row FTS5's snippet is asked to weigh (a million pairs).
    static let maxSnippetHits = 1_000
    private static let bodyColumn = SearchFeed.columns.firstIndex(of: SearchBuild.markdownColumn) ?? 1

    /// At most `limit` scalars of `snippet`, from a little before its first match: FTS5's
    /// window counts tokens, and what stands between them (100,000 quote marks, a letter
    /// under 50,000 accents) came whole. A mark cut in two is closed or dropped.
    static func bounded(_ snippet: String, scalars limit: Int) -> String {
        let scalars = Array(snippet.unicodeScalars)
        guard scalars.count > limit, limit > 0 else { return snippet }
        let firstMark = scalars.firstIndex(of: "\u{1}") ?? 0
        let start = max(0, min(firstMark - limit / 4, scalars.count - limit))
        var part = Array(scalars[start..<(start + limit)])
        if let close = part.firstIndex(of: "\u{2}"), part.firstIndex(of: "\u{1}").map({ $0 > close }) ?? true { part.remove(at: close) }
        if let open = part.lastIndex(of: "\u{1}"), part.lastIndex(of: "\u{2}").map({ $0 < open }) ?? true { part.append("\u{2}") }
        var out = String(String.UnicodeScalarView(part))
        if start > 0 && !out.hasPrefix("…") { out = "…" + out }
        return start + limit < scalars.count ? out + "…" : out
    }

    /// FTS5 starts a snippet at a token, and Thai, Lao, Khmer and Myanmar are indexed scalar
    /// by scalar: a snippet may open on a vowel or tone mark, which shows on a dotted circle.
    /// The marks after the opening `…` go.
    static func startingOnABase(_ snippet: String) -> String {
        var scalars = snippet.unicodeScalars[...]
        guard scalars.first == "…" else { return snippet }
        scalars = scalars.dropFirst()
        let marks: Set<Unicode.GeneralCategory> = [.nonspacingMark, .spacingMark, .enclosingMark]
        guard let first = scalars.first, marks.contains(first.properties.generalCategory) else { return snippet }
        while let mark = scalars.first, marks.contains(mark.properties.generalCategory) { scalars = scalars.dropFirst() }
        return "…" + String(String.UnicodeScalarView(scalars))
    }
}
