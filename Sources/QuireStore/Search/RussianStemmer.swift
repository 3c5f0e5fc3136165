/// The Snowball Russian stemmer (snowballstem.org/algorithms/russian), so that «Москва»,
/// «Москве» and «Москву» all index as «москв». Input: a lower-cased word with ё already
/// replaced by е.
enum RussianStemmer {
    private typealias Word = [UInt32]

    private static func w(_ s: String) -> Word { s.unicodeScalars.map(\.value) }
    private static func list(_ items: [String]) -> [Word] { items.map(w) }

    private static let vowels: Set<UInt32> = Set(w("аеиоуыэюя"))
    private static let aOrYa: Set<UInt32> = Set(w("ая"))

    private static let perfectiveGerund1 = list(["в", "вши", "вшись"])
    private static let perfectiveGerund2 = list(["ив", "ивши", "ившись", "ыв", "ывши", "ывшись"])
    private static let adjective = list(["ее", "ие", "ые", "ое", "ими", "ыми", "ей", "ий", "ый", "ой", "ем", "им", "ым",
                                         "ом", "его", "ого", "ему", "ому", "их", "ых", "ую", "юю", "ая", "яя", "ою", "ею"])
    private static let participle1 = list(["ем", "нн", "вш", "ющ", "щ"])
    private static let participle2 = list(["ивш", "ывш", "ующ"])
    private static let reflexive = list(["ся", "сь"])
    private static let verb1 = list(["ла", "на", "ете", "йте", "ли", "й", "л", "ем", "н", "ло", "но", "ет", "ют", "ны",
                                     "ть", "ешь", "нно"])
    private static let verb2 = list(["ила", "ыла", "ена", "ейте", "уйте", "ите", "или", "ыли", "ей", "уй", "ил", "ыл",
                                     "им", "ым", "ен", "ило", "ыло", "ено", "ят", "ует", "уют", "ит", "ыт", "ены", "ить",
                                     "ыть", "ишь", "ую", "ю"])
    private static let noun = list(["а", "ев", "ов", "ие", "ье", "е", "иями", "ями", "ами", "еи", "ии", "и", "ией", "ей",
                                    "ой", "ий", "й", "иям", "ям", "ием", "ем", "ам", "ом", "о", "у", "ах", "иях", "ях",
                                    "ы", "ь", "ию", "ью", "ю", "ия", "ья", "я"])
    private static let derivational = list(["ост", "ость"])
    private static let superlative = list(["ейш", "ейше"])

    package static func stem(_ input: String) -> String {
        var word = w(input)
        guard word.count > 2 else { return input }
        // RV: after the first vowel. R2: after vowel, non-vowel, vowel, non-vowel from RV on.
        guard let firstVowel = word.firstIndex(where: vowels.contains) else { return input }
        let rv = firstVowel + 1
        var p2 = word.count
        var i = rv
        func gopast(_ wantVowel: Bool) -> Bool {
            while i < word.count {
                let isVowel = vowels.contains(word[i])
                i += 1
                if isVowel == wantVowel { return true }
            }
            return false
        }
        if gopast(false) && gopast(true) && gopast(false) { p2 = i }

        // Step 1.
        if !removeGroup(&word, perfectiveGerund1, perfectiveGerund2, limit: rv) {
            // Unlike Snowball, a reflexive «ся/сь» is only taken off when a verb or adjectival
            // ending follows it: «запись» is a noun («запис», like «записи»), not «зап».
            let original = word
            let reflexiveRemoved = removeLongest(&word, reflexive, limit: rv)
            if removeLongest(&word, adjective, limit: rv) {
                _ = removeGroup(&word, participle1, participle2, limit: rv)
            } else if !removeGroup(&word, verb1, verb2, limit: rv) {
                if reflexiveRemoved { word = original }
                _ = removeLongest(&word, noun, limit: rv)
            }
        }
        // Step 2.
        if word.count > rv, word.last == 0x0438 { word.removeLast() }  // и
        // Step 3.
        _ = removeLongest(&word, derivational, limit: max(p2, rv))
        // Step 4.
        let n: UInt32 = 0x043D, softSign: UInt32 = 0x044C
        if removeLongest(&word, superlative, limit: rv) {
            if word.count >= rv + 2, word.suffix(2) == [n, n] { word.removeLast() }
        } else if word.count >= rv + 2, word.suffix(2) == [n, n] {
            word.removeLast()
        } else if word.count > rv, word.last == softSign {
            word.removeLast()
        }
        return String(String.UnicodeScalarView(word.compactMap(Unicode.Scalar.init)))
    }

    /// The longest of `suffixes` that `word` ends with and that starts at or after `limit`.
    private static func longest(_ word: Word, _ suffixes: [Word], limit: Int) -> Int? {
        var best: Int?
        for s in suffixes where s.count > (best ?? 0) && word.count - s.count >= limit && word.suffix(s.count).elementsEqual(s) {
            best = s.count
        }
        return best
    }

    private static func removeLongest(_ word: inout Word, _ suffixes: [Word], limit: Int) -> Bool {
        guard let n = longest(word, suffixes, limit: limit) else { return false }
        word.removeLast(n)
        return true
    }

    /// Snowball's two-group `among`: the longest match over both groups wins; a group-1
    /// suffix is removed only after «а» or «я» (which stays), and otherwise nothing is.
    private static func removeGroup(_ word: inout Word, _ group1: [Word], _ group2: [Word], limit: Int) -> Bool {
        let m1 = longest(word, group1, limit: limit) ?? 0
        let m2 = longest(word, group2, limit: limit) ?? 0
        if m2 >= m1 && m2 > 0 {
            word.removeLast(m2)
            return true
        }
        guard m1 > 0 else { return false }
        let before = word.count - m1 - 1
        guard before >= limit, aOrYa.contains(word[before]) else { return false }
        word.removeLast(m1)
        return true
    }
}
