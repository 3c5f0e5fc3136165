import Foundation
import Testing
@testable import QuireStore

@Suite struct TokenizerTests {
    @Test(arguments: [
        ("москва", "москв"), ("учиться", "уч"), ("улыбаясь", "улыб"), ("москве", "москв"), ("москву", "москв"), ("запись", "запис"), ("записи", "запис"),
        ("старая", "стар"), ("старый", "стар"), ("путешествие", "путешеств"), ("путешествия", "путешеств"),
        ("красивейший", "красив"), ("бежавший", "бежа"), ("книги", "книг"), ("книгами", "книг"),
    ])
    func russianStems(word: String, stem: String) {
        #expect(RussianStemmer.stem(word) == stem)
    }

    /// A word of letters folded to two (ß is ss) is folded in one pass: each ß appended its
    /// "ss" by copying the whole word so far, and a word of 400,000 took 93 s to add. Fails
    /// loudly past a deadline far above the second a million take.
    @Test func aLongWordOfFoldedLettersIsFoldedInOnePass() throws {
        let done = DispatchSemaphore(value: 0)
        let box = FoldedBox()
        Thread.detachNewThread {
            box.text = QuireTokenizer.normalize(String(repeating: "ß", count: 1_000_000) + "ø", mode: .query)
            done.signal()
        }
        try #require(done.wait(timeout: .now() + 60) == .success, "folding a word of 1,000,001 letters took over a minute")
        let folded = try #require(box.text)
        #expect(folded.utf8.count == 2_000_001 && folded.hasPrefix("ssss") && folded.hasSuffix("sso"))
    }

    /// English words are indexed and searched by their stem, however they reach the stemmer:
    /// read byte by byte, scalar by scalar beside another script, or folded from accents.
    @Test func englishWordsAreStemmed() {
        #expect(QuireTokenizer.tokens("Swimming swims SWIM meetings").map(\.text) == ["swim", "swim", "swim", "meet"])
        #expect(QuireTokenizer.tokens("swimming", mode: .query).map(\.text) == ["swim"])
        // A prefix is taken as typed (the words it may be short of are the query's).
        #expect(QuireTokenizer.tokens("Swimming", mode: .prefix).map(\.text) == ["swimming"])
        #expect(QuireTokenizer.tokens("swi", mode: .prefix).map(\.text) == ["swi"])
        // The same stems from the cache as from the stemmer, for words met again and long ones.
        let cache = QuireTokenizer.Cache()
        for word in ["generously", "generously", "internationalization", "internationalizations", "happily", "skies", "skies"] {
            var bytes = Array(word.utf8), again = Array(word.utf8)
            let n = bytes.withUnsafeMutableBufferPointer { cache.stem($0.baseAddress!, count: $0.count) }
            let m = again.withUnsafeMutableBufferPointer { EnglishStemmer.stem($0.baseAddress!, count: $0.count) }
            #expect(bytes[..<n] == again[..<m], "\(word)")
        }
        // Beside Cyrillic (the scalar path) as alone (the byte path).
        #expect(QuireTokenizer.tokens("Swimming—плавание").map(\.text).first == "swim")
        // Accents fold first: «cafés» is «cafes», stemmed as typed without them.
        #expect(QuireTokenizer.tokens("cafés naïvely", mode: .query).map(\.text) == QuireTokenizer.tokens("cafes naively", mode: .query).map(\.text))
        #expect(QuireTokenizer.tokens("cafés").map(\.text) == ["cafe"])
        // Words with digits, and words of two letters, stay as they are.
        #expect(QuireTokenizer.tokens("mp3s 2020s is as").map(\.text) == ["mp3s", "2020s", "is", "as"])
    }

    /// A prefix typed as far as some word of Snowball's vocabulary finds that word, as search
    /// as you type asks: `swimm*` finds «swimming», whose token is `swim`. Every fifth word's
    /// prefixes from three letters on, against the whole vocabulary as the journal: recall is
    /// the share of words starting with the prefix that are found, precision the share of
    /// found words that start with it.
    @Test func prefixesFindTheWordsTheyBegin() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/english-stems/vocabulary.tsv")
        let pairs = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
            .filter { $0.count == 2 && $0[0].utf8.allSatisfy { $0 &- 97 < 26 } }
        let byWord = pairs.map { ($0[0], $0[1]) }.sorted { $0.0 < $1.0 }
        let byStem = pairs.map { ($0[1], $0[0]) }.sorted { $0.0 < $1.0 }
        func range(_ sorted: [(String, String)], _ prefix: String) -> Range<Int> {
            func first(_ below: (String) -> Bool) -> Int {
                var (lo, hi) = (0, sorted.count)
                while lo < hi { let mid = (lo + hi) / 2; if below(sorted[mid].0) { lo = mid + 1 } else { hi = mid } }
                return lo
            }
            let lo = first { $0 < prefix }
            return lo..<first { $0 < prefix || $0.hasPrefix(prefix) }
        }
        var relevant = 0, found = 0, matched = 0, prefixes = 0, typedFound = 0
        for (index, pair) in byWord.enumerated() where index % 5 == 0 {
            let word = Array(pair.0)
            guard word.count > 3 else { continue }
            for length in 3..<word.count {
                let prefix = String(word[..<length])
                let tokens = QuireTokenizer.tokens(prefix, mode: .prefix).map(\.text)
                var hits = Set<String>()
                for token in tokens { for k in range(byStem, token) { hits.insert(byStem[k].1) } }
                // The completions are words: their stem whole.
                for stem in PrefixEndings.completions(of: prefix).flatMap({ QuireTokenizer.tokens($0, mode: .query).map(\.text) }) {
                    for k in range(byStem, stem) where byStem[k].0 == stem { hits.insert(byStem[k].1) }
                }
                let wanted = byWord[range(byWord, prefix)].map(\.0)
                relevant += wanted.count
                found += wanted.filter(hits.contains).count
                matched += hits.count
                prefixes += 1
                if hits.contains(pair.0) { typedFound += 1 }
            }
        }
        let recall = Double(found) / Double(relevant), precision = Double(found) / Double(max(matched, 1))
        let typed = Double(typedFound) / Double(prefixes)
        print("prefixes: \(prefixes), the word typed found \(typed), recall \(recall), precision \(precision)")
        #expect(typed > 0.99 && recall > 0.999 && precision > 0.97)
    }

    /// Every word of Snowball's English vocabulary stems as Snowball stems it (42,633 words).
    @Test func englishStemsAsSnowball() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/english-stems/vocabulary.tsv")
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 42_633)
        var wrong: [String] = []
        for line in lines {
            let pair = line.split(separator: "\t")
            guard pair.count == 2 else { Issue.record("a line without a tab: \(line)"); continue }
            var bytes = Array(pair[0].utf8)
            let n = bytes.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress.map { EnglishStemmer.stem($0, count: buffer.count) } ?? 0
            }
            let stem = String(decoding: bytes[..<n], as: UTF8.self)
            if stem != pair[1] { wrong.append("\(pair[0]) → \(stem), not \(pair[1])") }
        }
        #expect(wrong.isEmpty, "\(wrong.count) words: \(wrong.prefix(20).joined(separator: "; "))")
    }

    @Test func foldsCaseAndDiacritics() {
        #expect(QuireTokenizer.tokens("Canción ÉTÉ Ёлка").map(\.text) == ["cancion", "ete", QuireTokenizer.tokens("елка")[0].text])
        // Arabic: harakat, tatweel and hamza forms fold away.
        #expect(QuireTokenizer.tokens("كَتَبَ").map(\.text) == QuireTokenizer.tokens("كتب").map(\.text))
        #expect(QuireTokenizer.tokens("أحمد إلى").map(\.text) == QuireTokenizer.tokens("احمد الي").map(\.text))  // ى is ي too
        #expect(QuireTokenizer.tokens("جمـــيل").map(\.text) == ["جميل"])
    }

    @Test func japaneseIsIndexedAsBigramsWithUnigrams() {
        let doc = QuireTokenizer.tokens("東京タワー")
        #expect(doc.filter { !$0.colocated }.map(\.text) == ["東京", "京タ", "タワ", "ワー"])
        #expect(doc.filter(\.colocated).map(\.text) == ["東", "京", "タ", "ワ", "ー"])
        #expect(QuireTokenizer.tokens("東京", mode: .query).map(\.text) == ["東京"])
        #expect(QuireTokenizer.tokens("猫", mode: .query).map(\.text) == ["猫"])
    }

    /// A Korean word carries its particles (서울에서, "in Seoul"): Hangul is indexed as
    /// bigrams like Han and kana, so 서울 is found inside it.
    @Test func koreanIsIndexedAsBigramsWithUnigrams() {
        let doc = QuireTokenizer.tokens("서울에서 먹은")
        #expect(doc.filter { !$0.colocated }.map(\.text) == ["서울", "울에", "에서", "먹은"])
        #expect(doc.filter(\.colocated).map(\.text) == ["서", "울", "에", "서", "먹", "은"])
        #expect(QuireTokenizer.tokens("서울", mode: .query).map(\.text) == ["서울"])
    }

    /// Thai is written without spaces: a word is found inside a sentence, as a phrase of
    /// scalar bigrams, its tone marks and vowels kept.
    @Test func thaiIsIndexedAsBigrams() {
        #expect(QuireTokenizer.tokens("ไปเที่ยว", mode: .query).map(\.text) == ["ไป", "ปเ", "เท", "ที", "ี่", "่ย", "ยว"])
        #expect(QuireTokenizer.tokens("ไป ๑๒").map(\.text) == ["ไป", "ไ", "ป", "12"])
    }

    /// Arabic and Persian keyboards write ي/ی/ى and ك/ک apart; ة is read as ه.
    @Test func arabicAndPersianLettersFoldTogether() {
        #expect(QuireTokenizer.tokens("کتاب كتاب").map(\.text) == ["كتاب", "كتاب"])
        #expect(Set(QuireTokenizer.tokens("علی علي على").map(\.text)).count == 1)
        #expect(QuireTokenizer.tokens("مدرسة", mode: .query).map(\.text) == QuireTokenizer.tokens("مدرسه", mode: .query).map(\.text))
    }

    /// Hebrew writes "and", "the", "in" and four more as a letter in front of a word: a
    /// document is found by the word without one or two of them, a query is taken as typed.
    @Test func hebrewWordsAreAlsoIndexedWithoutTheirPrefixLetters() {
        let doc = QuireTokenizer.tokens("ובבית הבית בית שלום")
        #expect(doc.filter { !$0.colocated }.map(\.text) == ["ובבית", "הבית", "בית", "שלום"])
        #expect(doc.filter(\.colocated).map(\.text) == ["בבית", "בית", "בית", "לום"])
        #expect(doc.filter(\.colocated).allSatisfy { token in doc.contains { !$0.colocated && $0.start == token.start && $0.end == token.end } })
        #expect(QuireTokenizer.tokens("ובבית", mode: .query).map(\.text) == ["ובבית"])
        #expect(QuireTokenizer.tokens("ובית7").filter(\.colocated).isEmpty, "a word of Hebrew letters only")
    }

    /// Arabic writes the article, "and" and "with" as part of a word, and the pronouns and
    /// plurals after it: a noun is found in all those forms (Lucene's light stemmer rules).
    @Test func arabicWordsLoseTheirArticleAndEndings() {
        func stems(_ text: String, _ mode: QuireTokenizer.Mode = .document) -> [String] { QuireTokenizer.tokens(text, mode: mode).map(\.text) }
        #expect(stems("المدرسة مدرسة والمدرسة بالمدرسة للمدرسة") == ["مدرس", "مدرس", "مدرس", "مدرس", "مدرس"])
        #expect(stems("كتاب الكتاب كتابها كتابان الكتابات وكتاب", .query) == Array(repeating: "كتاب", count: 6))
        #expect(stems("المعلمون المعلمين") == ["معلم", "معلم"])
        // Too short to lose anything: و, ال and an ending each leave two letters at least.
        #expect(stems("ولد وقت الم يد") == ["ولد", "وقت", "الم", "يد"])
        // A prefix keeps its endings, so it still begins the stem: المدر* finds المدرسة.
        #expect(stems("المدر", .prefix) == ["مدر"] && stems("مدرسه", .prefix) == ["مدرسه"])
    }

    /// Greek's final sigma folds to σ: `lowercased()` makes a capital Σ «σ» wherever it stands.
    @Test func greekFinalSigmaIsASigma() {
        #expect(QuireTokenizer.tokens("ΟΔΟΣ Οδός οδοσ").map(\.text) == ["οδοσ", "οδοσ", "οδοσ"])
        #expect(QuireTokenizer.tokens("Αθήνας", mode: .query).map(\.text) == ["αθηνασ"])
        // Folded, as a prefix is (a document's and a query's ASCII words are also stemmed).
        let strasse = QuireTokenizer.tokens("Straße STRASSE Strasse ẞ", mode: .prefix)
        #expect(strasse.map(\.text) == ["strasse", "strasse", "strasse", "ss"])
        // Letters whose mark no decomposition takes off, typed without it.
        #expect(QuireTokenizer.tokens("Łódź Đà Nẵng København Ærø œuvre Iğdır", mode: .prefix).filter { !$0.colocated }.map(\.text)
            == ["lodz", "da", "nang", "kobenhavn", "aero", "oeuvre", "igdir"])
    }

    /// The Indic scripts write vowels and the virama as marks: they stay, or काल ("time")
    /// were कल ("yesterday"). Only the nukta goes, as people type ज़ as ज.
    @Test func indicWordsKeepTheirVowels() {
        #expect(QuireTokenizer.tokens("काल कल कुल").map(\.text) == ["काल", "कल", "कुल"])
        #expect(QuireTokenizer.tokens("கால் கல் கலை").map(\.text) == ["கால்", "கல்", "கலை"])
        #expect(QuireTokenizer.tokens("পড়া", mode: .query).map(\.text) == QuireTokenizer.tokens("পডা", mode: .query).map(\.text))
        #expect(QuireTokenizer.tokens("ज़िंदगी पढ़ी").map(\.text) == ["जिंदगी", "पढी"])
        // Hebrew's points go: a pointed word is found as it is usually written.
        #expect(QuireTokenizer.tokens("שָׁלוֹם", mode: .query).map(\.text) == ["שלום"])
    }

    /// Every script's digits are ASCII ones: a year typed on a Latin keyboard finds the
    /// year an Arabic, Persian, Hindi or Japanese entry wrote in its own digits.
    @Test func digitsOfEveryScriptAreOneNumber() {
        #expect(QuireTokenizer.tokens("٢٠٢٥ ۱۴۰۲ २०२५ ２０２５ ໒໐໒໕ ၂၀၂၅", mode: .query).map(\.text) == ["2025", "1402", "2025", "2025", "2025", "2025"])
        #expect(QuireTokenizer.tokens("٢٠٢٥م").map(\.text) == ["2025م"])
    }

    /// Persian writes a word's prefix and suffix with a zero-width non-joiner (می‌خواهم, "I
    /// want"; کتاب‌ها, "books") that many leave out: the word is one token without it, and
    /// a document also indexes its parts at its position. A soft hyphen or a zero-width
    /// joiner never cuts a word; a joiner beside no letter is a space.
    @Test func joinersKeepAWordWhole() {
        let doc = QuireTokenizer.tokens("می‌خواهم کتاب‌ها")
        #expect(doc.filter { !$0.colocated }.map(\.text) == ["ميخواهم", "كتاب"])
        #expect(doc.filter(\.colocated).map(\.text) == ["مي", "خواهم", "كتاب", "ها"])
        #expect(doc.map(\.start) == [0, 0, 7, 18, 18, 29] && doc.map(\.end) == [17, 4, 17, 33, 26, 33])
        for mode in [QuireTokenizer.Mode.query, .prefix] {
            #expect(QuireTokenizer.tokens("می‌خواهم", mode: mode).map(\.text) == ["ميخواهم"])
            #expect(QuireTokenizer.tokens("میخواهم", mode: mode).map(\.text) == ["ميخواهم"])
        }
        #expect(QuireTokenizer.tokens("Infor\u{AD}mation Auf\u{200C}lage", mode: .prefix).filter { !$0.colocated }.map(\.text) == ["information", "auflage"])
        #expect(QuireTokenizer.tokens("Infor\u{AD}mation Auf\u{200C}lage").map(\.text) == ["inform", "auflag", "auf", "lage"])
        #expect(QuireTokenizer.tokens("क्\u{200D}ष").map(\.text) == ["क्ष"])
        #expect(QuireTokenizer.tokens("a\u{200C} b \u{200C}c d\u{200C}\u{200C}e \u{AD}").map(\.text) == ["a", "b", "c", "d", "e"])
    }

    @Test func byteOffsetsPointAtTheSourceText() {
        let text = "Hi Москва, 東京!"
        let bytes = Array(text.utf8)
        for token in QuireTokenizer.tokens(text) {
            let source = String(decoding: bytes[token.start..<token.end], as: UTF8.self)
            #expect(!source.isEmpty)
        }
        #expect(QuireTokenizer.tokens(text).first?.start == 0)
        #expect(QuireTokenizer.tokens(text).first?.end == 2)
    }

    /// ASCII words take a path of their own (`tokenize`); every token, offset and flag must
    /// be what the scalar path (`tokenizeScalars`) makes of the same text, whatever surrounds
    /// the words: other scripts inside and beside them, marks, CJK, broken UTF-8.
    @Test(arguments: [.document, .query, .prefix] as [QuireTokenizer.Mode])
    func theASCIIPathMakesWhatTheScalarPathMakes(mode: QuireTokenizer.Mode) {
        let pieces: [[UInt8]] = ["a", "Z", "q", "7", "Hello", "WORLD", "mIxEd", "x9", " ", " ", ".", ",", "-", "\n", "_", "'",
                                 "é", "É", "ñ", "Canción", "Ёлка", "москве", "東京", "タワー", "كَتَبَ", "ـ", "\u{301}", "—", "«", "😀",
                                 "café", "naïve", "İ", "ß", "Ω", "서울", "เพื่อน", "ی", "ς", "Ł", "ø", "\u{AD}", "\u{200C}", "\u{200D}", "می", "הבית"].map { Array($0.utf8) } + [[0xFF], [0xC3], [0xE2, 0x82], [0x80], [0xF0, 0x9F, 0x98]]
        var generator = SystemRandomNumberGenerator()
        var texts: [[UInt8]] = pieces + pieces.flatMap { a in pieces.map { a + $0 } }
        for _ in 0..<2000 {
            texts.append((0..<Int.random(in: 1...12, using: &generator)).flatMap { _ in pieces.randomElement(using: &generator) ?? [] })
        }
        func run(_ text: [UInt8], _ scalars: Bool) -> [String] {
            var out: [String] = []
            _ = text.withUnsafeBufferPointer { buffer in
                let emit = { (token: UnsafeBufferPointer<UInt8>, start: Int, end: Int, colocated: Bool) -> Int32 in
                    out.append("\(Array(token)) \(start) \(end) \(colocated)")
                    return 0
                }
                return scalars ? QuireTokenizer.tokenizeScalars(buffer, mode: mode, cache: QuireTokenizer.Cache(), emit: emit)
                    : QuireTokenizer.tokenize(buffer, mode: mode, cache: QuireTokenizer.Cache(), emit: emit)
            }
            return out
        }
        var differing = 0
        for text in texts where run(text, false) != run(text, true) {
            differing += 1
            if differing <= 3 { Issue.record("\(text): \(run(text, false)) against \(run(text, true))") }
        }
        #expect(differing == 0)
    }

    /// The word cache gives what folding the word gives, whether the word is new, met again,
    /// in another mode, after the table grew several times or after it started afresh.
    @Test func theWordCacheGivesWhatFoldingGives() {
        let stems = ["москв", "Ёлк", "Canción", "ÉTÉ", "naïve", "كتب", "Ωμέγα", "straße", "İstanbul", "ВЕЛИКИЙ"]
        var words = stems.flatMap { stem in (0..<700).map { "\(stem)\(String(UnicodeScalar(0x430 + $0 % 32) ?? "а"))\($0 / 32)" } }
        words.append("é")
        let cache = QuireTokenizer.Cache(limit: 5000)
        var wrong: [String] = []
        for round in 0..<2 {
            for (k, word) in words.enumerated() {
                let mode: QuireTokenizer.Mode = [.document, .query, .prefix][(k + round) % 3]
                let got = Array(word.utf8).withUnsafeBufferPointer { bytes in
                    cache.withNormalized(bytes, mode: mode) { String(decoding: $0, as: UTF8.self) }
                }
                if got != QuireTokenizer.normalize(word, mode: mode) { wrong.append("\(word) \(mode): \(got)") }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }

    /// A nonzero answer from `emit` stops the tokenizing there, on either path.
    @Test func aRefusedTokenStopsTheTokenizing() {
        for text in ["one Two three", "один two три", "one 東京 three"] {
            var seen = 0
            let rc = Array(text.utf8).withUnsafeBufferPointer { buffer in
                QuireTokenizer.tokenize(buffer, mode: .document, cache: QuireTokenizer.Cache()) { _, _, _, _ in
                    seen += 1
                    return seen == 2 ? 7 : 0
                }
            }
            #expect(rc == 7 && seen == 2, "\(text)")
        }
    }

    @Test func invalidUTF8NeverTraps() {
        let garbage: [UInt8] = [0xFF, 0xC3, 0x28, 0xE2, 0x82, 0x41, 0xF0, 0x9F, 0x98]
        garbage.withUnsafeBufferPointer { buffer in
            _ = QuireTokenizer.tokenize(buffer, mode: .document, cache: QuireTokenizer.Cache()) { _, start, end, _ in
                #expect(start < end && end <= garbage.count)
                return 0
            }
        }
    }
}

@Suite struct SearchTests {
    func journal() throws -> (TempDir, Store, [String: String]) {
        let dir = TempDir()
        let store = try makeStore(dir)
        var ids: [String: String] = [:]
        ids["ru"] = try store.add(NewEntry(title: "Поездка", body: "Вчера мы гуляли по Москве и видели Кремль.")).id
        ids["ja"] = try store.add(NewEntry(title: "日記", body: "今日は東京タワーに行きました。とても楽しかったです。")).id
        ids["es"] = try store.add(NewEntry(title: "Música", body: "La canción de mi abuela sonaba en la cocina.")).id
        ids["ar"] = try store.add(NewEntry(title: "رحلة", body: "ذَهَبْتُ إلى المَكْتَبَةِ في الصباح")).id
        ids["en"] = try store.add(NewEntry(title: "Walking", body: "Long walk along the river with Sam.")).id
        let voice = try store.add(NewEntry(title: "Voice memo"))
        ids["voice"] = voice.id
        try store.attach(to: voice.id, NewAttachment(path: dir.file("memo.m4a", bytes: [1, 2, 3]),
                                                     transcript: "Remember to call the plumber about the leaking radiator"))
        return (dir, store, ids)
    }

    @Test func findsWordsInEveryLanguage() throws {
        let (_, store, ids) = try journal()
        func found(_ query: String) throws -> [String] { try store.search(query).map(\.id) }
        #expect(try found("Москва") == [ids["ru"]])        // another grammatical form
        #expect(try found("кремля") == [ids["ru"]])
        #expect(try found("東京") == [ids["ja"]])           // mid-sentence, no spaces
        #expect(try found("タワー") == [ids["ja"]])
        #expect(try found("楽しかった") == [ids["ja"]])
        #expect(try found("京") == [ids["ja"]])             // a single character
        #expect(try found("cancion") == [ids["es"]])       // accents ignored
        #expect(try found("CANCIÓN abuela") == [ids["es"]])
        #expect(try found("المكتبة") == [ids["ar"]])       // harakat ignored
        #expect(try found("مكتبة صباح") == [ids["ar"]])    // without the article
        let hebrew = try store.add(NewEntry(title: "ערב", body: "ישבנו ובבית היה שקט, והשלום חזר"))
        #expect(try found("בית שלום") == [hebrew.id] && found("הבית").isEmpty)
        #expect(try found("river") == [ids["en"]])
        #expect(try found("riv*") == [ids["en"]])
        #expect(try found("radiator") == [ids["voice"]])  // transcripts are searched
        #expect(try found("walks") == [ids["en"]] && found("leak") == [ids["voice"]])  // English is stemmed
        #expect(try found("walking along") == [ids["en"]])
        #expect(try found("walking*") == [ids["en"]] && found("leaking*") == [ids["voice"]], "a whole word typed as a prefix")
        #expect(try found("walki*") == [ids["en"]] && found("leaki*") == [ids["voice"]], "typed short of its ending")
        #expect(try found("river plumber") == [])          // every word must match
        #expect(try found("大阪") == [])
    }

    @Test func findsKoreanWordsInsideTheirParticlesAndGreekInAnyCase() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        let korean = try store.add(NewEntry(title: "서울에서 먹은 음식", body: "친구와 함께 맛있는 비빔밥을 먹었다."))
        let greek = try store.add(NewEntry(title: "ΟΔΟΣ ΑΘΗΝΑΣ", body: "Περπατήσαμε στην οδό."))
        func found(_ query: String) throws -> [String] { try store.search(query).map(\.id) }
        #expect(try found("서울") == [korean.id])
        #expect(try found("비빔밥") == [korean.id] && found("친구") == [korean.id])
        #expect(try found("서울에서 음식") == [korean.id])
        #expect(try found("부산") == [])
        #expect(try found("Οδός") == [greek.id] && found("αθηνας") == [greek.id] && found("περπατησαμε") == [greek.id])
        let thai = try store.add(NewEntry(title: "วันนี้ไปเที่ยวเชียงใหม่กับเพื่อน"))
        #expect(try found("เชียงใหม่") == [thai.id] && found("เพื่อน") == [thai.id] && found("วันนี้") == [thai.id])
        #expect(try found("กรุงเทพ") == [])
        // A snippet never opens on a Thai vowel or tone mark (a dotted circle on screen).
        let long = try store.add(NewEntry(title: "บันทึก", body: String(repeating: "วันนี้อากาศดีมาก ", count: 12) + "ไปเที่ยวตลาดน้ำกับครอบครัว"))
        let snippet = try #require(try store.search("ครอบครัว").first { $0.id == long.id }?.snippet())
        #expect(snippet.unicodeScalars.first == "…" && snippet.contains("ครอบครัว"), "\(snippet)")
        #expect(Store.startingOnABase("…\u{0E35}\u{0E48}ยว") == "…ยว" && Store.startingOnABase("…ยว") == "…ยว")
        #expect(Store.startingOnABase("\u{0E48}x") == "\u{0E48}x" && Store.startingOnABase("…") == "…" && Store.startingOnABase("") == "")
        let persian = try store.add(NewEntry(title: "کتاب خواندم", body: "در کتابخانه‌ی شهر"))
        #expect(try found("كتاب") == [persian.id])
        // Typed with the zero-width non-joiner, without it, or a part of the word alone.
        let want = try store.add(NewEntry(title: "امروز", body: "می‌خواهم کتاب‌ها را بخوانم"))
        for query in ["میخواهم", "می‌خواهم", "خواهم", "می‌خواهم کتاب‌ها", "میخوا*"] {
            #expect(try found(query) == [want.id], "\(query)")
        }
        #expect(try Set(found("کتابها")) == [want.id, persian.id], "books (کتاب‌ها) and a book (کتاب) are one stem")
        let part = try #require(try store.search("خواهم").first?.snippet(open: "[", close: "]"))
        #expect(part.contains("خواهم]"), "\(part)")
        let yesterday = try store.add(NewEntry(title: "कल बारिश हुई", body: "मैंने एक किताब पढ़ी।"))
        let time = try store.add(NewEntry(title: "कुल खर्च", body: "வீட்டில் ஒரு கல் இருந்தது"))
        #expect(try found("कल") == [yesterday.id] && found("कुल") == [time.id])
        #expect(try found("किताब पढी") == [yesterday.id], "the nukta is typed or not")
        #expect(try found("கல்") == [time.id] && found("கால்") == [])
        let year = try store.add(NewEntry(title: "سفر", body: "في عام ٢٠٢٥ زرنا القاهرة"))
        #expect(try found("2025") == [year.id] && found("٢٠٢٥") == [year.id])
    }

    @Test func hostileQueriesAreJustWords() throws {
        let (_, store, _) = try journal()
        for query in ["river\"", "NEAR(a b)", "a AND OR NOT", "title:river", "^river", "river*\"", "\"river\" OR 1", "a -", "\"a\"\"b\"",
                      "OR river", "river OR", "-\"\" river", "\"river", "river NOT", "(river) OR (1", "\"a\"* *"] {
            _ = try store.search(query)
        }
        for query in ["\"", "(((", "*", "!!! ...", "   ", "-river", "NOT river -sea", "OR AND NOT"] {
            #expect(throws: StoreError.self) { try store.search(query) }
        }
    }

    /// Any mix of quotes, dashes, stars, operators and FTS5's own syntax is a search or a
    /// one-line `.invalid`, never an FTS5 error: 3,000 queries drawn from a fixed seed.
    @Test func noQueryIsAnFTS5Error() throws {
        let (_, store, _) = try journal()
        let pieces = ["\"", "-", "*", "OR", "AND", "NOT", "(", ")", " ", " ", "river", "walk", "東京", ":", "^", "NEAR", "+", "'", "\\", "москва", "ۍ", "\u{200C}"]
        var state: UInt64 = 0x9E3779B97F4A7C15
        func next(_ bound: Int) -> Int {  // splitmix64: the same queries on every run
            state &+= 0x9E3779B97F4A7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
            z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        var searched = 0
        for _ in 0..<3000 {
            let query = (0..<(1 + next(8))).map { _ in pieces[next(pieces.count)] }.joined()
            do {
                _ = try store.search(query)
                searched += 1
            } catch let error as StoreError where error.kind == .invalid {
                continue
            } catch {
                Issue.record("\(query.debugDescription): \(error)")
            }
        }
        #expect(searched > 1000)
    }

    /// A search reads "phrases", `word*`, `-word` and `OR` as a web search does.
    @Test func queriesHavePhrasesExclusionsAndOr() throws {
        func fts(_ query: String) throws -> String { try Store.ftsQuery(query) }
        #expect(try fts("red car") == #""red" AND "car""#)
        #expect(try fts(#""red car" boat"#) == #""red car" AND "boat""#)
        #expect(try fts(#"dinner pizza OR pasta"#) == #""dinner" AND ("pizza" OR "pasta")"#)
        #expect(try fts(#"a OR b OR c d"#) == #"("a" OR "b" OR "c") AND "d""#)
        #expect(try fts(#"dinner -work NOT "the office""#) == #"("dinner") NOT "work" NOT "the office""#)
        #expect(try fts(#"swim* "red ca"*"#) == #""swim"* AND "red ca"*"#)
        // An English prefix is also the words it may be short of, as words.
        #expect(try fts("swimm* -Meetings*") == #"(("swimm"* OR "swimming")) NOT ("Meetings"* OR "meetings")"#)
        #expect(try fts("happine*") == #"("happine"* OR "happine" OR "happiness")"#)
        #expect(try fts(#"cats AND dogs"#) == #""cats" AND "dogs""#)
        #expect(try fts(#""open quote"#) == #""open quote""#)
        #expect(try fts(#"say "he said ""hi"""#) == #""say" AND "he said " AND "hi""#)
        #expect(try fts("a - b") == #""a" AND "b""#, "a dash alone is no exclusion")
        #expect(throws: StoreError.self) { try fts("-work") }

        let (_, store, ids) = try journal()
        func found(_ query: String) throws -> [String] { try store.search(query).map(\.id) }
        #expect(try found(#""walk along the river""#) == [ids["en"]])
        #expect(try found(#""river along""#).isEmpty, "a phrase keeps its order")
        #expect(try found(#""walking along""#) == [ids["en"]], "a phrase's words are stemmed")
        #expect(try found("river -sam").isEmpty && found("river -plumber") == [ids["en"]])
        #expect(try Set(found("river OR radiator")) == Set([ids["en"], ids["voice"]].compactMap { $0 }))
        #expect(try found("long river OR radiator") == [ids["en"]])
        #expect(try found(#"leak* -"call the""#).isEmpty && found("leak* -sam") == [ids["voice"]])
    }

    @Test func searchFollowsEditsAndDeletes() throws {
        let (_, store, ids) = try journal()
        let en = try #require(ids["en"])
        try store.edit(entryID: en, EntryEdit(body: "Swimming in the lake."))
        #expect(try store.search("river").isEmpty)
        #expect(try store.search("lake").map(\.id) == [en])
        let voiceID = try #require(ids["voice"])
        let voice = try #require(try store.entry(id: voiceID))
        try store.setTranscript(mediaID: voice.media[0].id, text: "Buy bread")
        #expect(try store.search("radiator").isEmpty)
        #expect(try store.search("bread").map(\.id) == [voice.id])
        try store.remove(mediaID: voice.media[0].id)
        #expect(try store.search("bread").isEmpty)
        try store.remove(entryID: en)
        #expect(try store.search("lake").isEmpty)
    }

    @Test func snippetsMarkTheMatch() throws {
        let (_, store, _) = try journal()
        let hit = try #require(try store.search("Москве").first)
        #expect(hit.snippet(open: "[", close: "]").contains("[Москве]"))
    }

    /// A page's snippets are read in one statement and matched to their hits by rowid: each
    /// hit shows its own text, with and without a filter, for a prefix of spaced words and a
    /// two-character prefix of a script indexed two characters at a time.
    @Test func everyHitOfAPageShowsItsOwnSnippet() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        let words = ["amber", "birch", "cobalt", "dune", "ember", "fjord", "glacier"]
        let kanji = ["一", "二", "三", "四", "五", "六", "七"]
        var own: [String: (word: String, kanji: String)] = [:]
        for (index, (word, number)) in zip(words, kanji).enumerated() {
            // Other entries between them, so the page's rowids are not one run.
            _ = try store.add(NewEntry(title: "Filler \(index)", body: "Nothing to find here, only \(word)s."))
            let entry = try store.add(NewEntry(body: "Walked the riverside to the \(word) bridge. 東京の\(number)番目の橋を渡った。",
                                               tags: index.isMultiple(of: 2) ? ["even"] : []))
            own[entry.id] = (word, number)
        }
        for (query, filter) in [("river*", EntryFilter()), ("東京*", EntryFilter()), ("river*", EntryFilter(tags: ["even"]))] {
            let hits = try store.search(query, filter: filter)
            #expect(hits.count == (filter.tags.isEmpty ? 7 : 4), "\(query)")
            for hit in hits {
                let expected = try #require(own[hit.id])
                let text = hit.snippet()
                #expect(text.contains(expected.word) && text.contains(expected.kanji + "番目"), "\(query): \(text)")
                #expect(hit.snippet(open: "[", close: "]").contains(query.hasPrefix("river") ? "[riverside]" : "[東京]"))
            }
        }
    }
}

private final class FoldedBox: @unchecked Sendable {  // written by one thread, read after its signal
    var text: String?
}
