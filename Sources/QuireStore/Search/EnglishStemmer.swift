import Foundation

/// The Snowball English stemmer (Porter2, snowballstem.org/algorithms/english, as
/// `english.sbl` has it since its `inter` exception), so that «swimming», «swims» and «swim»
/// all index as «swim», and «happiness» and «happy» as «happi». Checked word for word
/// against Snowball's own vocabulary (`Tests/QuireTests/Fixtures/english-stems`).
///
/// It works in place on a word of lower-case ASCII letters, in a buffer it may shorten
/// (no step makes a word longer than it came): the tokenizer's fast path hands it words as
/// they stand in a stack buffer, with no `String` made. A consonant `y` is marked `Y` (0x59)
/// while the steps run, as Snowball marks it.
enum EnglishStemmer {
    /// Stems `w[0..<count]` in place and returns the stem's length.
    static func stem(_ w: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        guard count > 2 else { return count }
        if let exception = exception(w, count) { return exception }
        var word = Word(w: w, n: count)
        word.prelude()
        word.markRegions()
        word.step1a()
        word.step1b()
        word.step1c()
        word.step2()
        word.step3()
        word.step4()
        word.step5()
        word.postlude()
        return word.n
    }

    /// Words the steps would get wrong, whole: changed, or left as they are.
    private static func exception(_ w: UnsafeMutablePointer<UInt8>, _ n: Int) -> Int? {
        func equals(_ s: StaticString) -> Bool { s.utf8CodeUnitCount == n && same(w, s.utf8Start, n) }
        func replace(_ s: StaticString) -> Int {
            memcpy(w, s.utf8Start, s.utf8CodeUnitCount)
            return s.utf8CodeUnitCount
        }
        guard w[n - 1] == 0x73 || w[n - 1] == 0x79 || w[n - 1] == 0x65 else { return nil }  // each ends in s, y or e
        switch n {
        case 3: return equals("sky") ? 3 : nil
        case 4:
            if equals("skis") { return 3 }
            if equals("idly") { return 3 }
            if equals("ugly") { return replace("ugli") }
            if equals("only") { return replace("onli") }
            if equals("news") || equals("howe") || equals("bias") { return 4 }
            return nil
        case 5:
            if equals("skies") { return replace("sky") }
            if equals("early") { return replace("earli") }
            if equals("atlas") || equals("andes") { return 5 }
            return nil
        case 6:
            if equals("gently") || equals("singly") { return 5 }
            if equals("cosmos") { return 6 }
            return nil
        default: return nil
        }
    }

    /// Whether the `k` bytes at `a` and `b` are the same, compared from the last: words
    /// and suffixes are a few bytes, where a call to `memcmp` costs more than the compare.
    @inline(__always)
    static func same(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ k: Int) -> Bool {
        var i = k - 1
        while i >= 0 {
            if a[i] != b[i] { return false }
            i -= 1
        }
        return true
    }

    /// What a step does with a suffix it found (in its region).
    enum Rule {
        /// Put this in its place.
        case replace(StaticString)
        /// Put this in its place after an `l` (Step 2's -ogi).
        case replaceAfterL(StaticString)
        /// Delete it after one of c d e g h k m n r t (Step 2's -li).
        case deleteAfterValidLI
        /// Delete it where it stands in R2 too (Step 3's -ative).
        case deleteInR2
        /// Delete it after an `s` or a `t` (Step 4's -ion).
        case deleteAfterSOrT
    }

    /// Suffixes and their rules grouped by the suffix's last letter, the longest first in
    /// each group, so that a step compares a word with the few that end as it does.
    struct SuffixTable {
        let entries: [(suffix: StaticString, rule: Rule)]
        /// The group of letter `k` (a = 0) is `entries[bounds[k]..<bounds[k + 1]]`.
        let bounds: [Int]

        init(_ list: [(StaticString, Rule)]) {
            func last(_ s: StaticString) -> Int { Int(s.utf8Start[s.utf8CodeUnitCount - 1]) - 97 }
            let sorted = list.map { (suffix: $0.0, rule: $0.1) }.sorted {
                last($0.suffix) != last($1.suffix) ? last($0.suffix) < last($1.suffix) : $0.suffix.utf8CodeUnitCount > $1.suffix.utf8CodeUnitCount
            }
            entries = sorted
            bounds = (0...26).map { letter in sorted.firstIndex { last($0.suffix) >= letter } ?? sorted.count }
        }

        /// Suffixes that a step only finds, each deleted if anything.
        init(deleting list: [StaticString]) { self.init(list.map { ($0, .replace("")) }) }
    }

    /// The word being stemmed, `w[0..<n]`, and its regions R1 (`p1..<n`) and R2 (`p2..<n`).
    private struct Word {
        let w: UnsafeMutablePointer<UInt8>
        var n: Int
        var p1 = 0
        var p2 = 0

        init(w: UnsafeMutablePointer<UInt8>, n: Int) {
            self.w = w
            self.n = n
        }

        // MARK: Letters

        /// a e i o u y (a consonant `y` is `Y` by then, which is none).
        @inline(__always)
        static func isVowel(_ b: UInt8) -> Bool {
            // a e i o u y: bits 0, 4, 8, 14, 20 and 24 of the alphabet.
            let k = b &- 97
            return k < 26 && (0x0110_4111 as UInt32) >> UInt32(k) & 1 == 1
        }

        func vowel(_ i: Int) -> Bool { Self.isVowel(w[i]) }

        /// Whether `w[0..<end]` ends with `s` (its last letter compared first).
        func ends(_ s: StaticString, at end: Int) -> Bool {
            let k = s.utf8CodeUnitCount
            return k <= end && same(w + (end - k), s.utf8Start, k)
        }

        func ends(_ s: StaticString) -> Bool { ends(s, at: n) }

        /// The longest suffix of `table` that the word ends with.
        func longest(_ table: SuffixTable) -> (suffix: StaticString, rule: Rule)? {
            let letter = Int(w[n - 1]) &- 97
            guard letter >= 0, letter < 26 else { return nil }
            for i in table.bounds[letter]..<table.bounds[letter + 1] where ends(table.entries[i].suffix) { return table.entries[i] }
            return nil
        }

        /// Applies `rule` to the word's last `length` bytes, a suffix found in its region.
        mutating func apply(_ rule: Rule, length k: Int) {
            switch rule {
            case .replace(let s): replaceEnd(k, with: s)
            case .replaceAfterL(let s): if n > k, w[n - k - 1] == 0x6C { replaceEnd(k, with: s) }
            case .deleteAfterValidLI: if n > k, "cdeghkmnrt".utf8.contains(w[n - k - 1]) { n -= k }
            case .deleteInR2: if n - k >= p2 { n -= k }
            case .deleteAfterSOrT: if n > k, w[n - k - 1] == 0x73 || w[n - k - 1] == 0x74 { n -= k }
            }
        }

        /// Puts `s` in place of the word's last `length` bytes.
        mutating func replaceEnd(_ length: Int, with s: StaticString) {
            let k = s.utf8CodeUnitCount
            n -= length
            memcpy(w + n, s.utf8Start, k)
            n += k
        }

        /// Whether `w[0..<end]` ends in a short syllable: a consonant, a vowel and a
        /// consonant other than w, x or Y; or a vowel and a consonant beginning the word;
        /// or «past».
        func endsShort(at end: Int) -> Bool {
            if end >= 3, !vowel(end - 1), w[end - 1] != 0x77, w[end - 1] != 0x78, w[end - 1] != 0x59,
               vowel(end - 2), !vowel(end - 3) { return true }
            if end == 2, !vowel(1), vowel(0) { return true }
            return ends("past", at: end)
        }

        // MARK: Steps

        /// A `y` that begins the word or follows a vowel is a consonant: `Y`.
        mutating func prelude() {
            if w[0] == 0x79 { w[0] = 0x59 }
            for i in 1..<n where w[i] == 0x79 && vowel(i - 1) { w[i] = 0x59 }
        }

        mutating func postlude() {
            for i in 0..<n where w[i] == 0x59 { w[i] = 0x79 }
        }

        /// R1 begins after the first consonant that follows a vowel (or after one of the
        /// prefixes that would mislead that rule); R2 likewise within R1.
        mutating func markRegions() {
            p1 = n
            p2 = n
            var i = 0
            if let prefix = misleadingPrefix(), prefix.utf8CodeUnitCount <= n, same(w, prefix.utf8Start, prefix.utf8CodeUnitCount) {
                i = prefix.utf8CodeUnitCount
            } else {
                guard let after = pastVowelAndConsonant(from: 0) else { return }
                i = after
            }
            p1 = i
            if let after = pastVowelAndConsonant(from: i) { p2 = after }
        }

        /// The one prefix R1 begins after that a word beginning with this letter may have.
        func misleadingPrefix() -> StaticString? {
            switch w[0] {
            case 0x61: return "arsen"
            case 0x63: return "commun"
            case 0x65: return "emerg"
            case 0x67: return "gener"
            case 0x69: return "inter"
            case 0x6C: return "later"
            case 0x6F: return "organ"
            case 0x70: return "past"
            case 0x75: return "univers"
            default: return nil
            }
        }

        /// The index after the first consonant that follows a vowel, from `start` on.
        func pastVowelAndConsonant(from start: Int) -> Int? {
            var i = start
            while i < n, !vowel(i) { i += 1 }
            guard i < n else { return nil }
            while i < n, vowel(i) { i += 1 }
            return i < n ? i + 1 : nil
        }

        /// Plurals: -sses, -ied/-ies, -s.
        mutating func step1a() {
            guard w[n - 1] == 0x73 || w[n - 1] == 0x64 else { return }  // s, d
            if ends("sses") {
                n -= 2
            } else if ends("ied") || ends("ies") {
                if n - 3 >= 2 { replaceEnd(3, with: "i") } else { replaceEnd(3, with: "ie") }
            } else if ends("us") || ends("ss") {
                return
            } else if ends("s") {
                // Only where a vowel comes before the letter before the s: gaps → gap, gas stays.
                if n >= 3, (0..<(n - 2)).contains(where: vowel) { n -= 1 }
            }
        }

        /// -eed, -ed, -ing and their -ly forms.
        static let step1bSuffixes = SuffixTable(deleting: ["eedly", "ingly", "edly", "eed", "ing", "ed"])

        mutating func step1b() {
            guard w[n - 1] == 0x64 || w[n - 1] == 0x67 || w[n - 1] == 0x79, let suffix = longest(Self.step1bSuffixes)?.suffix else { return }
            let k = suffix.utf8CodeUnitCount
            let start = n - k
            if ends("eed") || ends("eedly") {
                // agreed → agree; proceed, exceed and succeed stay.
                guard start >= p1 else { return }
                if start == 4 && (ends("proc", at: start) || ends("succ", at: start)) || start == 3 && ends("exc", at: start) { return }
                replaceEnd(k, with: "ee")
                return
            }
            if k == 3 {  // ing
                // dying → die, lying → lie; inning, outing and their like stay.
                if start == 2, w[1] == 0x79, !vowel(0) {
                    n = 1
                    replaceEnd(0, with: "ie")
                    return
                }
                if start == 3, ends("inn", at: 3) || ends("out", at: 3) { return }
                if start == 4, ends("cann", at: 4) || ends("herr", at: 4) || ends("earr", at: 4) || ends("even", at: 4) { return }
            }
            guard (0..<start).contains(where: vowel) else { return }
            n = start
            if ends("at") || ends("bl") || ends("iz") {
                replaceEnd(0, with: "e")  // luxuriating → luxuriate
            } else if n >= 2, w[n - 1] == w[n - 2], Self.doubles(w[n - 1]) {
                // hopping → hop, but adding, egging and odder keep their double letter.
                if !(n == 3 && (w[0] == 0x61 || w[0] == 0x65 || w[0] == 0x6F)) { n -= 1 }
            } else if n == p1 && endsShort(at: n) {
                replaceEnd(0, with: "e")  // hoping → hope
            }
        }

        /// The letters whose double Step 1b undoes: b d f g m n p r t.
        static func doubles(_ b: UInt8) -> Bool {
            switch b {
            case 0x62, 0x64, 0x66, 0x67, 0x6D, 0x6E, 0x70, 0x72, 0x74: return true
            default: return false
            }
        }

        /// A final y after a consonant that does not begin the word is i: cry → cri.
        mutating func step1c() {
            guard n >= 3, w[n - 1] == 0x79 || w[n - 1] == 0x59, !vowel(n - 2) else { return }
            w[n - 1] = 0x69
        }

        static let step2Suffixes = SuffixTable([
            ("ational", .replace("ate")), ("ization", .replace("ize")), ("fulness", .replace("ful")), ("ousness", .replace("ous")),
            ("iveness", .replace("ive")),
            ("tional", .replace("tion")), ("biliti", .replace("ble")), ("lessli", .replace("less")),
            ("entli", .replace("ent")), ("ation", .replace("ate")), ("alism", .replace("al")), ("aliti", .replace("al")),
            ("ousli", .replace("ous")), ("iviti", .replace("ive")), ("fulli", .replace("ful")), ("ogist", .replace("og")),
            ("enci", .replace("ence")), ("anci", .replace("ance")), ("abli", .replace("able")), ("izer", .replace("ize")),
            ("ator", .replace("ate")), ("alli", .replace("al")),
            ("bli", .replace("ble")), ("ogi", .replaceAfterL("og")),
            ("li", .deleteAfterValidLI),
        ])

        static let step3Suffixes = SuffixTable([
            ("ational", .replace("ate")), ("tional", .replace("tion")), ("alize", .replace("al")), ("icate", .replace("ic")),
            ("iciti", .replace("ic")), ("ative", .deleteInR2), ("ical", .replace("ic")), ("ness", .replace("")), ("ful", .replace("")),
        ])

        static let step4Suffixes = SuffixTable(
            ["ement", "ance", "ence", "able", "ible", "ment", "ant", "ent", "ism", "ate", "iti", "ous", "ive", "ize", "al", "er", "ic"]
                .map { ($0, Rule.replace("")) } + [("ion", .deleteAfterSOrT)])

        /// Steps 2 and 3 find the longest suffix of theirs and apply its rule where it stands
        /// in R1; Step 4, where it stands in R2.
        mutating func step2() { applyLongest(Self.step2Suffixes, from: p1) }
        mutating func step3() { applyLongest(Self.step3Suffixes, from: p1) }
        mutating func step4() { applyLongest(Self.step4Suffixes, from: p2) }

        /// The longest suffix of `table` the word ends with, its rule applied if it starts at
        /// `region` or after (a shorter one is not tried, as Snowball's `among` tries none).
        mutating func applyLongest(_ table: SuffixTable, from region: Int) {
            guard let (suffix, rule) = longest(table), n - suffix.utf8CodeUnitCount >= region else { return }
            apply(rule, length: suffix.utf8CodeUnitCount)
        }

        /// A final e or ll: generate → generat (R2), hope stays (short syllable), controll → control.
        mutating func step5() {
            if w[n - 1] == 0x65 {
                let start = n - 1
                if start >= p2 || (start >= p1 && !endsShort(at: start)) { n -= 1 }
            } else if w[n - 1] == 0x6C {
                if n - 1 >= p2, n >= 2, w[n - 2] == 0x6C { n -= 1 }
            }
        }
    }
}
