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

    /// Suffixes grouped by their last letter, the longest first in each group, so that a
    /// step compares a word with the few that end as it does.
    struct SuffixTable {
        let suffixes: [StaticString]
        /// The group of letter `k` (a = 0) is `suffixes[bounds[k]..<bounds[k + 1]]`.
        let bounds: [Int]

        init(_ list: [StaticString]) {
            func last(_ s: StaticString) -> Int { Int(s.utf8Start[s.utf8CodeUnitCount - 1]) - 97 }
            let sorted = list.sorted { last($0) != last($1) ? last($0) < last($1) : $0.utf8CodeUnitCount > $1.utf8CodeUnitCount }
            suffixes = sorted
            bounds = (0...26).map { letter in sorted.firstIndex { last($0) >= letter } ?? sorted.count }
        }
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
        func longest(_ table: SuffixTable) -> StaticString? {
            let letter = Int(w[n - 1]) &- 97
            guard letter >= 0, letter < 26 else { return nil }
            for i in table.bounds[letter]..<table.bounds[letter + 1] where ends(table.suffixes[i]) { return table.suffixes[i] }
            return nil
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
        static let step1bSuffixes = SuffixTable(["eedly", "ingly", "edly", "eed", "ing", "ed"])

        mutating func step1b() {
            guard w[n - 1] == 0x64 || w[n - 1] == 0x67 || w[n - 1] == 0x79, let suffix = longest(Self.step1bSuffixes) else { return }
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
            "ational", "ization", "fulness", "ousness", "iveness",
            "tional", "biliti", "lessli",
            "entli", "ation", "alism", "aliti", "ousli", "iviti", "fulli", "ogist",
            "enci", "anci", "abli", "izer", "ator", "alli",
            "bli", "ogi",
            "li",
        ])

        mutating func step2() {
            guard let suffix = longest(Self.step2Suffixes) else { return }
            let k = suffix.utf8CodeUnitCount
            guard n - k >= p1 else { return }
            switch k {
            case 7:
                if ends("ational") { replaceEnd(7, with: "ate") }
                else if ends("ization") { replaceEnd(7, with: "ize") }
                else if ends("fulness") { replaceEnd(7, with: "ful") }
                else if ends("ousness") { replaceEnd(7, with: "ous") }
                else { replaceEnd(7, with: "ive") }  // iveness
            case 6:
                if ends("tional") { replaceEnd(6, with: "tion") }
                else if ends("biliti") { replaceEnd(6, with: "ble") }
                else { replaceEnd(6, with: "less") }  // lessli
            case 5:
                if ends("entli") { replaceEnd(5, with: "ent") }
                else if ends("ation") { replaceEnd(5, with: "ate") }
                else if ends("alism") || ends("aliti") { replaceEnd(5, with: "al") }
                else if ends("ousli") { replaceEnd(5, with: "ous") }
                else if ends("iviti") { replaceEnd(5, with: "ive") }
                else if ends("fulli") { replaceEnd(5, with: "ful") }
                else { replaceEnd(5, with: "og") }  // ogist
            case 4:
                if ends("enci") { replaceEnd(4, with: "ence") }
                else if ends("anci") { replaceEnd(4, with: "ance") }
                else if ends("abli") { replaceEnd(4, with: "able") }
                else if ends("izer") { replaceEnd(4, with: "ize") }
                else if ends("ator") { replaceEnd(4, with: "ate") }
                else { replaceEnd(4, with: "al") }  // alli
            case 3:
                if ends("bli") { replaceEnd(3, with: "ble") }
                else if n >= 4, w[n - 4] == 0x6C { replaceEnd(3, with: "og") }  // ogi after l
            default:  // li, after c d e g h k m n r t
                if n >= 3, "cdeghkmnrt".utf8.contains(w[n - 3]) { n -= 2 }
            }
        }

        static let step3Suffixes = SuffixTable(["ational", "tional", "alize", "icate", "iciti", "ative", "ical", "ness", "ful"])

        mutating func step3() {
            guard let suffix = longest(Self.step3Suffixes) else { return }
            let k = suffix.utf8CodeUnitCount
            guard n - k >= p1 else { return }
            if ends("ational") { replaceEnd(7, with: "ate") }
            else if ends("tional") { replaceEnd(6, with: "tion") }
            else if ends("alize") { replaceEnd(5, with: "al") }
            else if ends("icate") || ends("iciti") { replaceEnd(5, with: "ic") }
            else if ends("ative") { if n - 5 >= p2 { n -= 5 } }
            else if ends("ical") { replaceEnd(4, with: "ic") }
            else { n -= k }  // ness, ful
        }

        static let step4Suffixes = SuffixTable([
            "ement",
            "ance", "ence", "able", "ible", "ment",
            "ant", "ent", "ism", "ate", "iti", "ous", "ive", "ize", "ion",
            "al", "er", "ic",
        ])

        mutating func step4() {
            guard let suffix = longest(Self.step4Suffixes) else { return }
            let k = suffix.utf8CodeUnitCount
            guard n - k >= p2 else { return }
            if k == 3 && ends("ion") {
                guard n - k >= 1, w[n - 4] == 0x73 || w[n - 4] == 0x74 else { return }  // after s or t
            }
            n -= k
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
