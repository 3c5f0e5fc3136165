/// The words a prefix typed into a search may be short of, searched as words beside it
/// (`SearchQuery`), as search as you type needs them. English words are indexed by their
/// stems (`EnglishStemmer`), so a prefix longer than a word's stem finds nothing by itself:
/// - the prefix as typed, when its stem is shorter: `meetings*` is the word «meetings»,
///   indexed as `meet`;
/// - a prefix that stops inside or just before an ending: `swimm*` and `swimmi*` are
///   «swimming», indexed as `swim`. The prefix is completed with the rest of each ending
///   (`swimm` + `ing`, `swimmi` + `ng`), and a completion whose stem is shorter than the
///   prefix, and begins it, is one of its words.
/// As words, not as prefixes: `swimming` finds «swim» and «swims» too, where `swim*` would
/// also find «swimsuit». Measured over Snowball's vocabulary (`prefixesFindTheWordsTheyBegin`).
enum PrefixEndings {
    static let all: [[UInt8]] = ["ing", "ings", "ingly", "ed", "edly", "er", "ers", "ies", "ied", "ness", "ment", "ments",
                                 "ation", "ations", "ational", "ful", "fully", "fulness", "ly", "ity", "ities", "ive", "ively",
                                 "iveness", "ous", "ously", "ousness", "ize", "ized", "izing", "ization", "al", "ally", "ical",
                                 "ically", "ance", "ence", "able", "ably", "ible", "ism", "ist", "ists"].map { Array($0.utf8) }

    /// The words `prefix` (lower-case ASCII letters, as the tokenizer gives a prefix) may be
    /// short of, one for each stem of three letters or more: the prefix itself if its stem is
    /// shorter, then the completions.
    static func completions(of prefix: String) -> [String] {
        let typedSoFar = Array(prefix.utf8)
        guard (4...64).contains(typedSoFar.count), typedSoFar.allSatisfy({ $0 &- 97 < 26 }) else { return [] }
        var stems: [ArraySlice<UInt8>] = [], words: [String] = []
        func offer(_ word: [UInt8], completed: Bool) {
            var stem = word
            let n = stem.withUnsafeMutableBufferPointer { b in b.baseAddress.map { EnglishStemmer.stem($0, count: b.count) } ?? b.count }
            guard n >= 3, n < typedSoFar.count, !completed || typedSoFar.starts(with: stem[..<n]), !stems.contains(stem[..<n]) else { return }
            stems.append(stem[..<n])
            words.append(String(decoding: word, as: UTF8.self))
        }
        offer(typedSoFar, completed: false)
        for ending in all {
            for typed in typed(ending, endOf: typedSoFar) { offer(typedSoFar + ending[typed...], completed: true) }
        }
        return words
    }

    /// How many of `ending`'s first letters `prefix` already ends with: each count from one
    /// up to all but the last; none (the whole ending added) only after a doubled
    /// consonant and before a vowel (`swimm` + `ing`), since an ending added to a prefix that
    /// does not stop inside it makes a word nobody wrote.
    static func typed(_ ending: [UInt8], endOf prefix: [UInt8]) -> [Int] {
        var counts: [Int] = []
        let n = prefix.count
        if n >= 2, prefix[n - 1] == prefix[n - 2], !isVowel(prefix[n - 1]), let first = ending.first, isVowel(first) { counts.append(0) }
        for typed in stride(from: 1, to: ending.count, by: 1) where typed < n && prefix[(n - typed)...].elementsEqual(ending[..<typed]) {
            counts.append(typed)
        }
        return counts
    }

    private static func isVowel(_ letter: UInt8) -> Bool { Array("aeiouy".utf8).contains(letter) }
}
