/// What a person typed into a search, read as a web search reads it, and written as an FTS5
/// query that no input can make a syntax error of:
/// - words: every one must match (`AND` between them may be written, and means nothing more);
/// - `"a phrase"`: its words, one after another;
/// - `word*` and `"a phra"*`: a prefix, taken as typed (not stemmed), and an English one
///   also as the words it may be short of (`swimm*` and `swimming`: `PrefixEndings`);
/// - `-word`, `-"a phrase"` or `NOT word`: no entry that holds it;
/// - `OR` between two terms: either (`dinner pizza OR pasta` is dinner and one of the two).
/// A quote left open runs to the end. Every term is quoted for FTS5, so `NEAR(`, `title:`
/// or `^` are words like any other.
struct SearchQuery {
    struct Term: Equatable {
        var text: String
        var prefix = false

        /// The term as an FTS5 string, its quotes doubled (scalar by scalar: a quote followed
        /// by a combining mark or a zero-width non-joiner is one `Character`, yet a quote to FTS5).
        var fts: String {
            var quoted = String.UnicodeScalarView()
            quoted.append("\"")
            for scalar in text.unicodeScalars {
                if scalar == "\"" { quoted.append(scalar) }
                quoted.append(scalar)
            }
            quoted.append("\"")
            let fts = String(quoted) + (prefix ? "*" : "")
            // A word typed short of its ending (`swimm*`) finds the words it may be short of.
            let typed = prefix ? QuireTokenizer.tokens(text, mode: .prefix) : []
            let words = typed.count == 1 ? PrefixEndings.completions(of: typed[0].text) : []
            return words.isEmpty ? fts : "(" + ([fts] + words.map { "\"" + $0 + "\"" }).joined(separator: " OR ") + ")"
        }
    }

    /// The terms to find, each group one of its terms (a group of one: that term).
    private(set) var groups: [[Term]] = []
    /// The terms no entry found may hold.
    private(set) var excluded: [Term] = []

    init(_ input: String) {
        // Read scalar by scalar, as FTS5 reads it (see `Term.fts`).
        var rest = Substring(input).unicodeScalars[...]
        var negated = false, or = false
        while let first = rest.first {
            if first.properties.isWhitespace {
                rest = rest.dropFirst()
                continue
            }
            var term: Term
            if first == "-", let next = rest.dropFirst().first, !next.properties.isWhitespace {
                negated = true
                rest = rest.dropFirst()
                continue
            } else if first == "\"" {
                let inside = rest.dropFirst()
                let close = inside.firstIndex(of: "\"") ?? inside.endIndex
                term = Term(text: String(Substring(inside[..<close])))
                rest = close < inside.endIndex ? inside[inside.index(after: close)...] : inside[close...]
                if rest.first == "*" {
                    term.prefix = true
                    rest = rest.dropFirst()
                }
            } else {
                let end = rest.firstIndex(where: \.properties.isWhitespace) ?? rest.endIndex
                var word = Substring(rest[..<end])
                rest = rest[end...]
                switch word {
                case "AND": continue
                case "OR": or = !negated && !groups.isEmpty; continue
                case "NOT": negated = true; continue
                default: break
                }
                let prefix = word.unicodeScalars.count > 1 && word.unicodeScalars.last == "*"
                if prefix { word = Substring(word.unicodeScalars.dropLast()) }
                term = Term(text: String(word), prefix: prefix)
            }
            defer { negated = false; or = false }
            // A term of no word (punctuation, a lone `*`) is passed over.
            guard !QuireTokenizer.tokens(term.text, mode: term.prefix ? .prefix : .query).isEmpty else { continue }
            if negated {
                excluded.append(term)
            } else if or, !groups.isEmpty {
                groups[groups.count - 1].append(term)
            } else {
                groups.append([term])
            }
        }
    }

    /// The FTS5 query.
    /// - Throws: `.invalid` when there is no word to find.
    func fts() throws -> String {
        guard !groups.isEmpty else {
            throw StoreError(.invalid, detail: excluded.isEmpty ? "the search has no words to look for"
                : "the search has only words to leave out; give one to look for as well")
        }
        let found = groups.map { $0.count == 1 ? $0[0].fts : "(" + $0.map(\.fts).joined(separator: " OR ") + ")" }
            .joined(separator: " AND ")  // FTS5 reads no implicit AND beside a parenthesis
        return excluded.isEmpty ? found : "(" + found + ")" + excluded.map { " NOT " + $0.fts }.joined()
    }
}
