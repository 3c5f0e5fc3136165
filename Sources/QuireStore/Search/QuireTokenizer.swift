import Foundation

/// The word splitter behind full-text search, shared by indexing and queries:
/// - letters and digits form words; Latin, Greek and Arabic words are folded for case and
///   diacritics (so «canción» finds «cancion», «ΟΔΟΣ» finds «οδός» with its final ς,
///   «strasse» finds «Straße» and «lodz» «Łódź»; Arabic harakat and tatweel are ignored,
///   and أ/إ/آ match ا; Arabic-script words lose their article and commonest endings:
///   `arabicStem`; Hebrew words are also indexed without the one-letter words in front:
///   `emitWithoutHebrewPrefixes`), Cyrillic words are lower-cased, ё→е, and Russian-stemmed; the
///   Indic scripts keep their vowel signs (`isDiacritic`); every script's digits are read
///   as ASCII ones (٢٠٢٥ is 2025); a soft hyphen or a zero-width (non-)joiner inside a
///   word leaves it whole (`emitJoined`);
/// - Han, Hiragana and Katakana, Thai, Lao, Khmer and Myanmar, written without spaces, and
///   Hangul, whose words carry their particles (서울에서, "in Seoul"), are indexed as
///   overlapping bigrams of their scalars with each scalar also indexed on its own at the
///   same position, so any word of two or more is found as a phrase of bigrams (서울 in
///   서울에서, เพื่อน in a Thai sentence), and a single character by itself.
package enum QuireTokenizer {
    package enum Mode: Sendable {
        case document
        case query
        /// A query term ending in `*`: no stemming, so the prefix matches as typed.
        case prefix
    }

    /// One token with the byte range of the text it came from.
    package struct Token: Equatable, Sendable {
        package var text: String
        package var start: Int
        package var end: Int
        /// At the same position as the previous token (a CJK unigram beside its bigram).
        package var colocated: Bool
    }

    /// Splits `text` into tokens (a convenience for tests and snippets).
    package static func tokens(_ text: String, mode: Mode = .document) -> [Token] {
        var result: [Token] = []
        var copy = text
        let cache = Cache()
        copy.withUTF8 { buffer in
            _ = tokenize(buffer, mode: mode, cache: cache) { token, start, end, colocated in
                result.append(Token(text: String(decoding: token, as: UTF8.self), start: start, end: end, colocated: colocated))
                return 0
            }
        }
        return result
    }

    /// Calls `emit(tokenBytes, start, end, colocated)` for each token; stops at and returns
    /// the first nonzero result of `emit`.
    ///
    /// Most words of most journals are ASCII: those are read a byte at a time and handed to
    /// `emit` as they stand in the text, or lower-cased on the stack, never as Unicode
    /// scalars (`tokenizeScalars` does the rest, and is what they must equal). Importing
    /// bench's 10,000 entries (61 % of their bytes in other scripts): 1.23 s of CPU against
    /// 1.30 s when every word went scalar by scalar.
    static func tokenize(_ text: UnsafeBufferPointer<UInt8>, mode: Mode, cache: Cache,
                         emit: (UnsafeBufferPointer<UInt8>, Int, Int, Bool) -> Int32) -> Int32 {
        guard let base = text.baseAddress else { return 0 }
        let count = text.count
        var i = 0
        while i < count {
            let from: Int
            if base[i] < 0x80 {
                guard isASCIIWordByte(base[i]) else {
                    i += 1
                    continue
                }
                let start = i
                var upper = false
                while i < count, base[i] < 0x80, isASCIIWordByte(base[i]) {
                    upper = upper || base[i] &- 65 < 26
                    i += 1
                }
                guard i < count, base[i] >= 0x80 else {
                    let word = UnsafeBufferPointer(rebasing: text[start..<i])
                    let rc = withASCIIToken(word, upper: upper, mode: mode, cache: cache) { emit($0, start, i, false) }
                    if rc != 0 { return rc }
                    continue
                }
                from = start  // the word may go on in another script («café»)
            } else {
                from = i
            }
            // A run holding another script, up to the next ASCII byte that is no letter or
            // digit, goes whole to the scalar path: a word in it may begin or end in ASCII.
            var end = i + 1
            while end < count, base[end] >= 0x80 || isASCIIWordByte(base[end]) { end += 1 }
            let rc = tokenizeScalars(text, from: from, to: end, mode: mode, cache: cache, emit: emit)
            if rc != 0 { return rc }
            i = end
        }
        return 0
    }

    /// Letters and digits of ASCII: the bytes that make words there (`classify`).
    @inline(__always)
    private static func isASCIIWordByte(_ b: UInt8) -> Bool {
        b &- 48 < 10 || (b | 0x20) &- 97 < 26
    }

    /// `word` (ASCII letters and digits) as its token, for `body`:
    /// lower-cased, and stemmed as English (`EnglishStemmer`: «Swimming» is «swim», through
    /// `cache`) when it is letters alone; on the stack. A prefix is taken as typed (the words
    /// it may be short of are `SearchQuery`'s: `PrefixEndings`). `upper`: whether it holds a
    /// capital (else a word too short to stem is handed over as it stands).
    @inline(__always)
    private static func withASCIIToken(_ word: UnsafeBufferPointer<UInt8>, upper: Bool, mode: Mode, cache: Cache,
                                       _ body: (UnsafeBufferPointer<UInt8>) -> Int32) -> Int32 {
        let stems = word.count > 2
        guard stems || upper else { return body(word) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: word.count) { buffer in
            guard let base = buffer.baseAddress else { return body(word) }
            var letters = true
            for (k, b) in word.enumerated() {
                base[k] = b &- 65 < 26 ? b | 0x20 : b
                letters = letters && b &- 48 >= 10
            }
            let lowered = UnsafeBufferPointer(start: base, count: word.count)
            guard stems && letters else { return body(lowered) }
            return mode == .prefix ? body(lowered) : body(UnsafeBufferPointer(start: base, count: cache.stem(base, count: word.count)))
        }
    }

    /// `tokenize`, scalar by scalar, for the bytes `from..<to` of `text` (offsets are of `text`).
    static func tokenizeScalars(_ whole: UnsafeBufferPointer<UInt8>, from: Int = 0, to: Int? = nil, mode: Mode, cache: Cache,
                                emit: (UnsafeBufferPointer<UInt8>, Int, Int, Bool) -> Int32) -> Int32 {
        let text = UnsafeBufferPointer(rebasing: whole[..<(to ?? whole.count)])
        var i = from
        var cjk: [(start: Int, end: Int)] = []
        while i < text.count {
            let (scalar, length) = decode(text, at: i)
            let kind = classify(scalar)
            if kind == .separator {
                i += length
                continue
            }
            let start = i
            if kind == .cjk {
                cjk.removeAll(keepingCapacity: true)
                while i < text.count {
                    let (s, n) = decode(text, at: i)
                    guard classify(s) == .cjk else { break }
                    cjk.append((i, i + n))
                    i += n
                }
                let rc = emitCJK(text, cjk, mode: mode, emit: emit)
                if rc != 0 { return rc }
                continue
            }
            var ascii = true, nonJoiners = 0
            while i < text.count {
                let (s, n) = decode(text, at: i)
                if classify(s) != .word {
                    // A joiner between two letters keeps them one word (`isJoiner`).
                    guard isJoiner(s.value), i + n < text.count, classify(decode(text, at: i + n).0) == .word else { break }
                    if s.value == 0x200C { nonJoiners += 1 }
                }
                if n > 1 { ascii = false }
                i += n
            }
            let word = UnsafeBufferPointer(rebasing: text[start..<i])
            let rc: Int32
            if nonJoiners > 0 {
                rc = emitJoined(text, start..<i, mode: mode, cache: cache, emit: emit)
            } else if ascii {
                rc = withASCIIToken(word, upper: true, mode: mode, cache: cache) { emit($0, start, i, false) }
            } else {
                rc = cache.withNormalized(word, mode: mode) { token in
                    guard !token.isEmpty else { return 0 }
                    let rc = emit(token, start, i, false)
                    switch mode {
                    case _ where rc != 0, .query, .prefix: return rc
                    case .document: return emitWithoutHebrewPrefixes(token, start, i, emit: emit)
                    }
                }
            }
            if rc != 0 { return rc }
        }
        return 0
    }

    /// A word written with zero-width non-joiners: Persian writes می‌خواهم ("I want") and
    /// کتاب‌ها ("books") with one between a word and its prefix or suffix, which half of its
    /// writers type as a space or leave out. The whole word (without them) is its token, so it
    /// is found typed either way, and in a document each part is also indexed at the same
    /// position, so خواهم and کتاب find it too.
    private static func emitJoined(_ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, mode: Mode, cache: Cache,
                                   emit: (UnsafeBufferPointer<UInt8>, Int, Int, Bool) -> Int32) -> Int32 {
        var emitted = false
        var rc = cache.withNormalized(UnsafeBufferPointer(rebasing: text[range]), mode: mode) { token -> Int32 in
            guard !token.isEmpty else { return 0 }
            emitted = true
            return emit(token, range.lowerBound, range.upperBound, false)
        }
        guard rc == 0, mode == .document else { return rc }
        var from = range.lowerBound, i = range.lowerBound
        while i <= range.upperBound {
            let (s, n) = i < range.upperBound ? decode(text, at: i) : ("\u{200C}", 0)
            if s.value == 0x200C {
                let part = UnsafeBufferPointer(rebasing: text[from..<i])
                rc = cache.withNormalized(part, mode: mode) { token -> Int32 in
                    guard !token.isEmpty else { return 0 }
                    defer { emitted = true }
                    return emit(token, from, i, emitted)
                }
                if rc != 0 { return rc }
                from = i + n
            }
            i += max(n, 1)
        }
        return 0
    }

    /// Hebrew writes "and", "the", "in", "to", "from", "that" and "as" (ו ה ב ל מ ש כ) as a
    /// letter in front of a word, up to two of them (ובבית, "and in the house"): a document
    /// also indexes the word without one and without two such letters, at its position, so
    /// בית finds הבית and ובבית. Only where three letters at least are left: בית is not
    /// also indexed as ית. Queries are not cut (הבית finds הבית, not every בית).
    private static func emitWithoutHebrewPrefixes(_ token: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int,
                                                  emit: (UnsafeBufferPointer<UInt8>, Int, Int, Bool) -> Int32) -> Int32 {
        // Hebrew letters are two bytes each in UTF-8, D7 90 (א) to D7 AA (ת); a word of
        // anything else as well is left as it is.
        guard token.count >= 8, token.count % 2 == 0,
              stride(from: 0, to: token.count, by: 2).allSatisfy({ token[$0] == 0xD7 && (0x90...0xAA).contains(token[$0 + 1]) }) else { return 0 }
        let prefixLetters: Set<UInt8> = [0x95, 0x94, 0x91, 0x9C, 0x9E, 0xA9, 0x9B]  // ו ה ב ל מ ש כ
        var cut = 0
        while cut < 4, prefixLetters.contains(token[cut + 1]), token.count - cut - 2 >= 6 {
            cut += 2
            let rc = emit(UnsafeBufferPointer(rebasing: token[cut...]), start, end, true)
            if rc != 0 { return rc }
        }
        return 0
    }

    /// Scalars that join the letters on either side into one word, and are no part of it:
    /// the soft hyphen (an imported page's hyphenation points), the zero-width non-joiner and
    /// joiner (they choose a letter's shape in Persian and the Indic scripts) and the word joiner.
    static func isJoiner(_ v: UInt32) -> Bool {
        v == 0x00AD || v == 0x200C || v == 0x200D || v == 0x2060
    }

    private static func emitCJK(_ text: UnsafeBufferPointer<UInt8>, _ chars: [(start: Int, end: Int)], mode: Mode,
                                emit: (UnsafeBufferPointer<UInt8>, Int, Int, Bool) -> Int32) -> Int32 {
        func piece(_ a: Int, _ b: Int) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: text[chars[a].start..<chars[b].end])
        }
        if chars.count == 1 {
            return emit(piece(0, 0), chars[0].start, chars[0].end, false)
        }
        for k in 0..<(chars.count - 1) {
            var rc = emit(piece(k, k + 1), chars[k].start, chars[k + 1].end, false)
            if rc != 0 { return rc }
            if mode == .document {
                rc = emit(piece(k, k), chars[k].start, chars[k].end, true)
                if rc != 0 { return rc }
            }
        }
        if mode == .document {
            let last = chars.count - 1
            return emit(piece(last, last), chars[last].start, chars[last].end, true)
        }
        return 0
    }

    /// Folding and stemming cost microseconds per word, and text repeats its words (Zipf),
    /// so results are memoised. One cache per SQLite connection (which one thread uses at a
    /// time), keyed by an FNV-1a hash of the word's bytes and checked against them; bounded.
    /// Words and results live in one byte arena per mode, found through an open-addressed
    /// table: a word met again costs a hash, a probe and a compare, with no reference
    /// counting (a dictionary of arrays cost about a third of the scalar path's time).
    package final class Cache: @unchecked Sendable {  // one per SQLite connection, used by one thread at a time
        /// Documents and queries (stemmed), and prefixes (not).
        private var tables = [Table(), Table()]
        /// Words kept at most per mode, and bytes: past either, the table starts afresh.
        private let limit: Int
        static let arenaLimit = 16 << 20
        /// While an index build inserts rows read and tokenized ahead, their tokens.
        var feed: SearchFeed?

        /// English stems of ASCII words of 3 to 16 letters, direct-mapped (`stem`): 1.3 MB of
        /// zeroed memory (an empty slot is all zeros), which the kernel gives only as it is used.
        private let stems: UnsafeMutablePointer<StemSlot>
        static let stemSlots = 1 << 15

        /// A word of up to 16 letters, packed in two integers (no letter is a zero byte, so
        /// no two words pack alike and no word packs as an empty slot), and its stem.
        struct StemSlot {
            var word: (UInt64, UInt64) = (0, 0)
            var stem: (UInt64, UInt64) = (0, 0)
            var length = 0
        }

        package init(limit: Int = 100_000) {
            self.limit = limit
            guard let zeroed = calloc(Self.stemSlots, MemoryLayout<StemSlot>.stride) else { fatalError("out of memory") }
            stems = zeroed.bindMemory(to: StemSlot.self, capacity: Self.stemSlots)
        }

        deinit { free(stems) }

        /// Stems `w[0..<count]` (lower-case ASCII letters) in place, as `EnglishStemmer` does;
        /// a word met again (text repeats its words) costs a hash and a compare instead of the
        /// stemmer's steps: an English journal's import spent a fifth of its time stemming.
        func stem(_ w: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
            guard count <= 16 else { return EnglishStemmer.stem(w, count: count) }
            func pack(_ from: Int, _ to: Int) -> UInt64 {
                var v: UInt64 = 0
                var i = to - 1
                while i >= from {
                    v = v << 8 | UInt64(w[i])
                    i -= 1
                }
                return v
            }
            let word = (pack(0, min(count, 8)), pack(8, max(count, 8)))
            let index = Int(truncatingIfNeeded: (word.0 &* 0x9E37_79B9_7F4A_7C15 ^ word.1 &* 0xC2B2_AE3D_27D4_EB4F) >> 49)
            let slot = stems + index
            if slot.pointee.word == word {
                let (s0, s1, n) = (slot.pointee.stem.0, slot.pointee.stem.1, slot.pointee.length)
                for i in 0..<n { w[i] = UInt8(truncatingIfNeeded: i < 8 ? s0 >> (8 * i) : s1 >> (8 * (i - 8))) }
                return n
            }
            let n = EnglishStemmer.stem(w, count: count)
            slot.pointee = StemSlot(word: word, stem: (pack(0, min(n, 8)), pack(8, max(n, 8))), length: n)
            return n
        }

        /// Calls `body` with what `word` folds to for `mode` (empty: no token).
        func withNormalized<R>(_ word: UnsafeBufferPointer<UInt8>, mode: Mode, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            var hash: UInt64 = 0xcbf29ce484222325
            for byte in word { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
            let which = mode == .prefix ? 1 : 0
            if let found = tables[which].find(word, hash: hash) { return tables[which].value(found, body) }
            let value = Array(QuireTokenizer.normalize(String(decoding: word, as: UTF8.self), mode: mode).utf8)
            if tables[which].count >= limit || tables[which].arena.count >= Self.arenaLimit { tables[which] = Table() }
            let slot = tables[which].insert(word, value: value, hash: hash)
            return tables[which].value(slot, body)
        }

        /// Words and their results, one after another in `arena`; `slots` (a power of two of
        /// them, at most half full) points into it by hash, probing linearly.
        private struct Table {
            struct Slot {
                var hash: UInt64 = 0
                var start: Int32 = -1  // the word's first byte in the arena; -1: empty
                var wordLength: Int32 = 0
                var valueLength: Int32 = 0
            }
            var slots = [Slot](repeating: Slot(), count: 1 << 12)
            var arena: [UInt8] = []
            private(set) var count = 0

            /// The slot holding `word`, if any.
            func find(_ word: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Int? {
                let mask = slots.count - 1
                return slots.withUnsafeBufferPointer { slots in
                    arena.withUnsafeBufferPointer { arena in
                        var index = Int(truncatingIfNeeded: hash) & mask
                        while slots[index].start >= 0 {
                            let slot = slots[index]
                            if slot.hash == hash, Int(slot.wordLength) == word.count {
                                guard let kept = arena.baseAddress, let sought = word.baseAddress else { return index }  // both empty
                                if memcmp(kept + Int(slot.start), sought, word.count) == 0 { return index }
                            }
                            index = (index + 1) & mask
                        }
                        return nil
                    }
                }
            }

            /// Keeps `word` and `value` (it is not held yet); the slot it went to.
            mutating func insert(_ word: UnsafeBufferPointer<UInt8>, value: [UInt8], hash: UInt64) -> Int {
                if (count + 1) * 2 > slots.count { grow() }
                let slot = Slot(hash: hash, start: Int32(arena.count), wordLength: Int32(word.count), valueLength: Int32(value.count))
                arena.append(contentsOf: word)
                arena.append(contentsOf: value)
                count += 1
                return place(slot)
            }

            /// Calls `body` with the result kept in `slot`.
            func value<R>(_ slot: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
                let s = slots[slot]
                return arena.withUnsafeBufferPointer { arena in
                    let from = Int(s.start) + Int(s.wordLength)
                    return body(UnsafeBufferPointer(rebasing: arena[from..<(from + Int(s.valueLength))]))
                }
            }

            private mutating func place(_ slot: Slot) -> Int {
                let mask = slots.count - 1
                var index = Int(truncatingIfNeeded: slot.hash) & mask
                while slots[index].start >= 0 { index = (index + 1) & mask }
                slots[index] = slot
                return index
            }

            private mutating func grow() {
                let old = slots
                slots = [Slot](repeating: Slot(), count: old.count * 2)
                for slot in old where slot.start >= 0 { _ = place(slot) }
            }
        }
    }

    /// Folds a non-ASCII word for matching.
    static func normalize(_ word: String, mode: Mode) -> String {
        let lower = word.lowercased()
        if lower.unicodeScalars.contains(where: { (0x0400...0x04FF).contains($0.value) }) {
            let folded = lower.replacingOccurrences(of: "ё", with: "е")
            return mode == .prefix ? folded : RussianStemmer.stem(folded)
        }
        var scalars = String.UnicodeScalarView()
        for scalar in lower.decomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark where isDiacritic(scalar.value), .enclosingMark: continue
            case .format where isJoiner(scalar.value): continue
            case .decimalNumber:
                // Every script's digits are the same number: ٢٠٢٥, ۱۴۰۲, २०२५ and ２０２５ are
                // found by 2025 and 1402, as typed on a Latin keyboard, and the other way round.
                if let value = scalar.properties.numericValue, (0...9).contains(value), value == value.rounded() {
                    scalars.append(Unicode.Scalar(UInt8(48 + Int(value))))
                } else {
                    scalars.append(scalar)
                }
            default:
                // Letters read as another (`sameLetter`).
                if let same = Self.sameLetter[scalar.value] {
                    // One by one: `append(contentsOf:)` copies all the word so far, and a
                    // word of 400,000 ß took 93 s to add.
                    for letter in same.unicodeScalars { scalars.append(letter) }
                } else if scalar.value != 0x0640 {  // tatweel
                    scalars.append(scalar)
                }
            }
        }
        if let first = scalars.first, (0x0621...0x064A).contains(first.value) || (0x0671...0x06D3).contains(first.value) {
            return String(String.UnicodeScalarView(arabicStem(Array(scalars), mode: mode))).precomposedStringWithCanonicalMapping
        }
        let folded = String(scalars).precomposedStringWithCanonicalMapping
        // «café» and «naïve» fold to ASCII letters: stemmed as the same words typed without
        // their accents are (`withASCIIToken`).
        guard mode != .prefix, folded.utf8.count > 2, folded.utf8.allSatisfy({ $0 &- 97 < 26 }) else { return folded }
        var bytes = Array(folded.utf8)
        let n = bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { EnglishStemmer.stem($0, count: buffer.count) } ?? 0
        }
        return String(decoding: bytes[..<n], as: UTF8.self)
    }

    /// An Arabic-script word without its article and conjunction in front and its commonest
    /// endings (Larkey's light stemmer, as Lucene's ArabicStemmer applies it, on letters
    /// already folded: ة is ه, ى is ي): المدرسة ("the school") and مدرسة meet at مدرس, and
    /// a search for كتاب finds الكتاب, وكتاب and كتابها (Persian's کتاب‌ها, "books", too).
    /// A prefix query (`المدر*`) loses only the article, so what it keeps still begins the
    /// stored stems.
    static func arabicStem(_ word: [Unicode.Scalar], mode: Mode) -> [Unicode.Scalar] {
        var word = word[...]
        for prefix in arabicPrefixes where word.count >= (prefix.count == 1 ? 4 : prefix.count + 2) && word.starts(with: prefix) {
            word = word.dropFirst(prefix.count)
            break
        }
        guard mode != .prefix else { return Array(word) }
        for suffix in arabicSuffixes where word.count >= suffix.count + 2 && word.reversed().starts(with: suffix.reversed()) {
            word = word.dropLast(suffix.count)
        }
        return Array(word)
    }

    static let arabicPrefixes: [[Unicode.Scalar]] = ["ال", "وال", "بال", "كال", "فال", "لل", "و"].map { Array($0.unicodeScalars) }
    static let arabicSuffixes: [[Unicode.Scalar]] = ["ها", "ان", "ات", "ون", "ين", "يه", "ه", "ي"].map { Array($0.unicodeScalars) }

    /// Marks a word is found without: Latin's and Greek's accents (after decomposition),
    /// Hebrew's points, Arabic's harakat, and the nukta of the Indic scripts (ज़ is typed as
    /// ज as often as not). The other marks of the Indic scripts are vowel signs, the anusvara
    /// and the virama: कुल ("total") and कल ("yesterday") are two words.
    static func isDiacritic(_ v: UInt32) -> Bool {
        switch v {
        case 0x0300...0x036F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F,  // combining diacritics
             0x0591...0x05C7,  // Hebrew points and cantillation
             0x0610...0x061A, 0x064B...0x065F, 0x0670, 0x06D6...0x06ED, 0x08D3...0x08FF,  // Arabic
             0x093C, 0x09BC, 0x0A3C, 0x0ABC, 0x0B3C, 0x0CBC:  // nukta
            return true
        default:
            return false
        }
    }

    /// Letters folded to another, beside case and marks (see `normalize`).
    static let sameLetter: [UInt32: String] = [
        // Arabic and Persian write the same words with letters of their own keyboards: ى, ي
        // and ی are one, ك and ک are one, and ة is read as ه.
        0x0649: "ي", 0x06CC: "ي", 0x06A9: "ك", 0x0629: "ه",
        // Greek's final sigma is a sigma: `lowercased()` makes ΟΔΟΣ «οδοσ», not «οδος».
        0x03C2: "σ",
        // Latin letters no decomposition takes the mark off, as people type them without it
        // (Łódź is "lodz", Đà Nẵng "da nang", København "kobenhavn"); ß is ss.
        0x0111: "d", 0x0142: "l", 0x00F8: "o", 0x0131: "i", 0x0127: "h", 0x0167: "t", 0x0140: "l",
        0x00E6: "ae", 0x0153: "oe", 0x00DF: "ss",
    ]

    enum Class { case separator, word, cjk }

    static func classify(_ scalar: Unicode.Scalar) -> Class {
        let v = scalar.value
        if v < 0x80 {
            if (48...57).contains(v) || (65...90).contains(v) || (97...122).contains(v) { return .word }
            return .separator
        }
        switch v {
        case 0x00C0...0x024F, 0x0400...0x0481, 0x048A...0x04FF, 0x0621...0x063A, 0x0641...0x064A, 0x0391...0x03C9:
            return v == 0x00D7 || v == 0x00F7 ? .separator : .word  // Latin, Cyrillic, Arabic, Greek letters
        case 0x3005, 0x3006, 0x3040...0x30FF, 0x31F0...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xF900...0xFAFF, 0xFF66...0xFF9F, 0x20000...0x2FA1F,
             0xAC00...0xD7A3, 0x1100...0x11FF, 0x3131...0x318E,  // Hangul syllables and jamo
             0x0E01...0x0E3A, 0x0E40...0x0E4E, 0x0E81...0x0ECF, 0x0EDC...0x0EDF, 0x1000...0x103F, 0x1050...0x108F,
             0x109A...0x109F, 0x1780...0x17D3, 0x17DC, 0x17DD:  // Thai, Lao, Myanmar, Khmer: letters and marks (not digits)
            return .cjk
        default:
            break
        }
        let p = scalar.properties
        if p.isAlphabetic { return .word }
        switch p.generalCategory {
        case .decimalNumber, .nonspacingMark, .spacingMark, .enclosingMark: return .word
        default: return .separator
        }
    }

    /// Decodes one UTF-8 scalar at `i`; invalid bytes decode as U+FFFD of length 1.
    @inline(__always)
    static func decode(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> (Unicode.Scalar, Int) {
        let c0 = b[i]
        if c0 < 0x80 { return (Unicode.Scalar(c0), 1) }
        let replacement = (Unicode.Scalar(0xFFFD as UInt32) ?? " ", 1)
        func cont(_ k: Int) -> UInt32? {
            guard i + k < b.count, b[i + k] & 0xC0 == 0x80 else { return nil }
            return UInt32(b[i + k] & 0x3F)
        }
        var value: UInt32
        var length: Int
        switch c0 {
        case 0xC2...0xDF:
            guard let a = cont(1) else { return replacement }
            value = UInt32(c0 & 0x1F) << 6 | a; length = 2
        case 0xE0...0xEF:
            guard let a = cont(1), let c = cont(2) else { return replacement }
            value = UInt32(c0 & 0x0F) << 12 | a << 6 | c; length = 3
        case 0xF0...0xF4:
            guard let a = cont(1), let c = cont(2), let d = cont(3) else { return replacement }
            value = UInt32(c0 & 0x07) << 18 | a << 12 | c << 6 | d; length = 4
        default:
            return replacement
        }
        guard let scalar = Unicode.Scalar(value) else { return replacement }
        return (scalar, length)
    }
}
