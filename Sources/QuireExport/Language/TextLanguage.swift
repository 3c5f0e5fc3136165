import QuireStore
import QuireSupport

/// The language and writing direction of a piece of text, where its script tells them.
/// Quire stores no language per entry, so this is read off the letters: a script that
/// belongs to one language (kana → ja, Hangul → ko, Greek → el, Hebrew → he, Thai → th,
/// and `ownScripts`: Bengali → bn, Tamil → ta, Georgian → ka …) or whose language shows in
/// a few letters or words (Arabic script: ٹ ڈ ڑ ں ے → ur, Persian letters → fa, else ar; Cyrillic: і/ї/є/ґ →
/// uk, ў → be, ђ/ћ/џ/љ/њ/ј → sr, else ru; Han without kana → zh, or zh-Hant when more of its
/// letters are written only in traditional characters than only in simplified ones:
/// `hanForm`; Devanagari → hi, or mr or ne when their commonest words lead).
/// Latin text is told by its commonest short words (`LatinWords`): English, Spanish, French,
/// German, Italian, Portuguese, Dutch, Polish, Turkish, Swedish, Danish, Norwegian,
/// Vietnamese or Indonesian when enough of them show, else no guess.
package struct TextLanguage: Equatable, Sendable {
    /// A BCP 47 tag, or nil when the script does not tell.
    package let code: String?
    /// "rtl" or "ltr", from the first letter with a strong direction; nil if none.
    package let direction: String?

    /// What an entry's title, body and transcripts say.
    package init(of entry: Entry) {
        var text = entry.title + "\n" + entry.body
        for media in entry.media where !media.transcript.isEmpty { text += "\n" + media.transcript }
        self.init(of: text)
    }

    init(code: String?, direction: String?) {
        self.code = code
        self.direction = direction
    }

    /// Scripts counted, in alphabetical order, then `ownScripts` (a tie goes to the first).
    private static let scripts = ["arabic", "cyrillic", "el", "han", "he", "kana", "ko", "latin", "th"] + ownScripts.map(\.code)
    private enum Index {
        static let arabic = 0, cyrillic = 1, el = 2, han = 3, he = 4, kana = 5, ko = 6, latin = 7, th = 8, own = 9
    }

    /// Chinese written in traditional characters (Taiwan, Hong Kong) is told from simplified
    /// by the commonest characters each writes its own way (們/们, 這/这, 說/说 …): for each
    /// scalar of the block 0x4E00...0x9FFF, 1 for traditional-only, 2 for simplified-only. A
    /// table, not a set: every Han letter of every book is looked up.
    static let hanForm: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 0xA000 - 0x4E00)
        for (letters, form) in [("們這說時國會來學個後還對點體長開關與為從當發無過樣麼讓見頭給問題覺經車門東現電話實麗氣愛歡寫記", UInt8(1)),
                                ("们这说时国会来学个后还对点体长开关与为从当发无过样么让见头给问题觉经车门东现电话实丽气爱欢写记", 2)] {
            for scalar in letters.unicodeScalars where (0x4E00...0x9FFF).contains(scalar.value) { table[Int(scalar.value - 0x4E00)] = form }
        }
        return table
    }()

    /// Unicode blocks whose script is written for one language above all, with its tag.
    static let ownScripts: [(block: ClosedRange<UInt32>, code: String)] = [
        (0x0530...0x058F, "hy"), (0x0900...0x097F, "hi"), (0x0980...0x09FF, "bn"), (0x0A00...0x0A7F, "pa"),
        (0x0A80...0x0AFF, "gu"), (0x0B00...0x0B7F, "or"), (0x0B80...0x0BFF, "ta"), (0x0C00...0x0C7F, "te"),
        (0x0C80...0x0CFF, "kn"), (0x0D00...0x0D7F, "ml"), (0x0D80...0x0DFF, "si"), (0x0E80...0x0EFF, "lo"),
        (0x1000...0x109F, "my"), (0x10A0...0x10FF, "ka"), (0x1200...0x137F, "am"), (0x1780...0x17FF, "km"),
    ]

    /// Blocks of the counted scripts in which every scalar is a letter (`isAlphabetic`, as
    /// a test checks one by one): the letters of most text in those scripts, told without
    /// the Unicode property lookup that was a sixth of exporting 10,000 entries as Markdown.
    static let letterRanges: [ClosedRange<UInt32>] = [
        0x00C0...0x00D6, 0x00D8...0x00F6, 0x00F8...0x024F,  // Latin
        0x0391...0x03A1, 0x03A3...0x03A9, 0x03B1...0x03C9,  // Greek
        0x0400...0x0481, 0x048A...0x04FF,  // Cyrillic
        0x05D0...0x05EA,  // Hebrew
        0x0620...0x063F, 0x0641...0x064A, 0x0671...0x06D3,  // Arabic
        0x0E01...0x0E30,  // Thai
        0x3041...0x3096, 0x30A1...0x30FA,  // kana
        0xAC00...0xD7A3,  // Hangul
    ]

    @inline(__always)
    static func isLetter(_ v: UInt32) -> Bool {
        guard v <= 0xD7A3 else { return false }
        for range in letterRanges where range.contains(v) { return true }
        return false
    }

    package init(of text: String) {
        let text = Self.prose(text)
        // Counted in a small array, with ASCII letters told without a Unicode property lookup:
        // this runs over every entry of every book.
        var counts = [Int](repeating: 0, count: Self.scripts.count)
        var direction: String?
        var persian = false, urdu = false, ukrainian = false, belarusian = false, serbian = false
        var traditional = 0, simplified = 0
        var seen = 0
        for scalar in text.unicodeScalars {
            let v = scalar.value
            let script: Int?
            if v < 0x80 {
                guard (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v) else { continue }
                script = Index.latin
            } else {
                guard Self.isLetter(v) || (0x4E00...0x9FFF).contains(v) || scalar.properties.isAlphabetic else { continue }
                switch v {
                case 0x0041...0x024F: script = Index.latin
                case 0x0370...0x03FF: script = Index.el
                case 0x0400...0x04FF:
                    script = Index.cyrillic
                    switch scalar {
                    case "і", "ї", "є", "ґ", "І", "Ї", "Є", "Ґ": ukrainian = true
                    case "ў", "Ў": belarusian = true
                    case "ђ", "ћ", "џ", "љ", "њ", "ј", "Ђ", "Ћ", "Џ", "Љ", "Њ", "Ј": serbian = true
                    default: break
                    }
                case 0x0590...0x05FF: script = Index.he
                case 0x0600...0x06FF, 0x0750...0x077F, 0xFB50...0xFDFF, 0xFE70...0xFEFF:
                    script = Index.arabic
                    if ["پ", "چ", "ژ", "گ", "ک", "ی"].contains(scalar) { persian = true }
                    if ["ٹ", "ڈ", "ڑ", "ں", "ے", "ۓ"].contains(scalar) { urdu = true }  // Urdu's own letters
                case 0x0E00...0x0E7F: script = Index.th
                case 0x3040...0x30FF: script = Index.kana
                case 0xAC00...0xD7AF, 0x1100...0x11FF: script = Index.ko
                case 0x4E00...0x9FFF, 0x3400...0x4DBF:
                    script = Index.han
                    if v >= 0x4E00 {
                        switch Self.hanForm[Int(v - 0x4E00)] {
                        case 1: traditional += 1
                        case 2: simplified += 1
                        default: break
                        }
                    }
                case 0x0530...0x17FF: script = Self.ownScripts.firstIndex { $0.block.contains(v) }.map { Index.own + $0 }
                default: script = nil
                }
            }
            seen += 1
            if seen > 2000 { break }
            guard let script else { continue }
            counts[script] += 1
            if direction == nil { direction = script == Index.he || script == Index.arabic ? "rtl" : "ltr" }
        }
        self.direction = direction
        var top: Int?
        for index in counts.indices where counts[index] > 0 && counts[index] > (top.map { counts[$0] } ?? 0) { top = index }
        switch top.map({ Self.scripts[$0] }) {
        case "kana": code = "ja"
        case "han": code = counts[Index.kana] > 0 ? "ja" : traditional > simplified ? "zh-Hant" : "zh"
        case "arabic": code = urdu ? "ur" : persian ? "fa" : "ar"
        case "cyrillic": code = ukrainian ? "uk" : belarusian ? "be" : serbian ? "sr" : "ru"
        case let name? where ["el", "he", "th", "ko"].contains(name): code = name
        case "latin": code = LatinWords.language(of: text)
        case "hi": code = Self.devanagariLanguage(of: text)
        case let own? where Self.ownScripts.contains(where: { $0.code == own }): code = own
        default: code = nil
        }
    }
}

extension TextLanguage {
    /// Words each language of Devanagari writes in nearly every sentence and the others do
    /// not: Marathi's आहे ("is") and आणि ("and"), Nepali's छ ("is") and पनि ("also").
    static let devanagariWords: [(code: String, words: Set<Substring>)] = [
        ("hi", ["है", "हैं", "और", "में", "नहीं", "था", "थी", "थे", "यह", "वह", "भी", "हम", "मैं", "गया", "गए"]),
        ("mr", ["आहे", "आहेत", "आणि", "नाही", "होते", "होता", "मला", "पण", "आम्ही", "मी", "त्या", "केले", "झाले"]),
        ("ne", ["छ", "छन्", "र", "पनि", "हो", "थियो", "मेरो", "भयो", "हुन्छ", "छैन", "यो", "गरें", "थिए"]),
    ]

    /// Hindi, Marathi or Nepali, by which one's `devanagariWords` show most (Hindi when none
    /// leads: it is the most written of them).
    static func devanagariLanguage(of text: String) -> String {
        var counts = [Int](repeating: 0, count: devanagariWords.count)
        // The danda (।) is punctuation too. Only the text's start is split, as `init` reads
        // only its first 2,000 letters: a long entry is not split whole to read 500 words.
        for word in text.prefix(4000).split(whereSeparator: { $0.isWhitespace || $0.isPunctuation }).prefix(500) {
            for (index, list) in devanagariWords.enumerated() where list.words.contains(word) { counts[index] += 1 }
        }
        let best = counts.indices.max { counts[$0] < counts[$1] || (counts[$0] == counts[$1] && $0 > $1) } ?? 0
        return counts[best] > 0 ? devanagariWords[best].code : "hi"
    }

    /// `text` without the targets of its links and its bare URLs, which are no prose: a
    /// photo's `![](quire:media/8fa2e84d-7ee9-…)` has more Latin letters than a short
    /// Russian entry, reads as "c", "d", "e", "a" (French, Italian and Portuguese words), and
    /// would give an Arabic entry that opens with it the direction left to right.
    static func prose(_ text: String) -> String {
        guard text.containsBytes("](") || text.containsBytes("://") else { return text }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D }
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "]"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "(") {
                // `](target)` or `](<target with spaces>)`: every byte that ends it is ASCII,
                // so what is left is UTF-8 still.
                out.append(byte)
                i += 2
                let end = i < bytes.count && bytes[i] == UInt8(ascii: "<") ? UInt8(ascii: ">") : UInt8(ascii: ")")
                while i < bytes.count, bytes[i] != end, end == UInt8(ascii: ">") || !isSpace(bytes[i]) { i += 1 }
                continue
            }
            if byte == UInt8(ascii: ":"), bytes[i...].starts(with: "://".utf8) {
                // A bare URL: its scheme is already out, the rest runs to a space.
                while let last = out.last, (0x61...0x7A).contains(last | 0x20) || last == UInt8(ascii: "+") { out.removeLast() }
                while i < bytes.count, !isSpace(bytes[i]) { i += 1 }
                continue
            }
            out.append(byte)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Tells the language of Latin-script text by the short words every sentence of it uses
/// ("the", "und", "que"): each word of the text counts for each language whose list holds
/// it, and a language is named when at least two of its words show and it counts at least
/// twice any other (a word shared by several languages counts for each, so tells none).
enum LatinWords {
    static let lists: [(code: String, words: Set<Substring>)] = [
        ("de", ["der", "die", "das", "und", "ist", "ich", "nicht", "ein", "eine", "mit", "war", "wir", "zu", "den", "dem",
                "auf", "für", "von", "sich", "auch", "heute", "sehr", "aber", "es", "wie", "noch", "nach"]),
        ("en", ["the", "and", "of", "to", "is", "was", "it", "that", "with", "for", "this", "we", "i", "my", "you", "have",
                "had", "not", "but", "were", "are", "be", "at", "on", "today", "went", "an", "very", "our"]),
        ("es", ["el", "la", "los", "las", "de", "que", "y", "en", "un", "una", "es", "fue", "por", "con", "para", "del",
                "al", "hoy", "muy", "pero", "se", "lo", "como", "más", "mi", "estaba", "día"]),
        ("fr", ["le", "la", "les", "de", "des", "et", "est", "un", "une", "je", "nous", "pas", "que", "qui", "dans", "pour",
                "avec", "sur", "du", "au", "ce", "été", "était", "très", "mais", "aujourd", "j", "c", "l", "d"]),
        ("it", ["il", "lo", "la", "gli", "le", "di", "che", "e", "è", "un", "una", "per", "non", "con", "sono", "era",
                "oggi", "molto", "ma", "del", "della", "ho", "mi", "abbiamo"]),
        ("nl", ["de", "het", "een", "en", "is", "niet", "van", "ik", "dat", "met", "was", "vandaag", "we", "zijn", "op", "naar"]),
        ("pt", ["o", "a", "os", "as", "de", "que", "e", "é", "um", "uma", "não", "com", "para", "do", "da", "em", "foi",
                "hoje", "muito", "mas", "eu", "no", "na", "estava", "dia"]),
        // Polish and Turkish: words no other list has ("i", "do", "to", "de" and "da" are
        // left out: English, Portuguese and the Romance languages write them too; Turkish's
        // "var" is the Scandinavian languages' "was").
        ("pl", ["w", "nie", "się", "z", "że", "jest", "jak", "ale", "po", "dzisiaj", "było", "był", "bardzo", "co", "już",
                "od", "tak", "mnie", "jestem", "byłem", "byłam"]),
        ("tr", ["ve", "bir", "bu", "için", "ile", "çok", "ama", "ben", "bugün", "gibi", "daha", "sonra", "yok",
                "çünkü", "şey", "kadar", "değil", "biz", "gittik"]),
        // Swedish, Danish and Norwegian share most of their commonest words (och is
        // Swedish's own, but og, jeg, ikke and det are both the others'): each list holds
        // only words the other two, and English, spell otherwise.
        ("sv", ["och", "jag", "är", "inte", "att", "ett", "för", "också", "idag", "mycket", "hade", "hon", "någon", "när",
                "kunde", "skulle", "vara", "sedan", "från", "vad", "honom"]),
        ("da", ["af", "hvad", "noget", "meget", "blev", "havde", "lidt", "jer", "mere", "gik", "hende", "nogle", "fik",
                "rigtig", "ind", "ud"]),
        ("nb", ["ble", "hva", "noe", "mye", "hadde", "nå", "meg", "deg", "seg", "enn", "litt", "igjen", "dere", "gikk",
                "noen", "fikk", "opp", "etter", "å"]),
        // Vietnamese (its tone marks make its words its own; là is French too) and Indonesian.
        ("vi", ["và", "của", "có", "không", "được", "một", "những", "các", "cho", "này", "đã", "với", "người", "tôi",
                "chúng", "hôm", "rất", "đi", "lại", "ở", "ăn", "nhiều", "đến"]),
        ("id", ["dan", "yang", "ini", "itu", "dengan", "untuk", "tidak", "saya", "dari", "hari", "sangat", "kami", "kita",
                "ada", "akan", "sudah", "juga", "tapi", "karena", "pergi", "kemarin", "bisa", "lagi", "sekali"]),
    ]

    /// Each listed word's UTF-8 bytes packed into a number (none is longer than 8), with
    /// the languages whose lists hold it, one bit each.
    static let table: [UInt64: UInt16] = {
        var table: [UInt64: UInt16] = [:]
        for (index, list) in lists.enumerated() {
            for word in list.words {
                var key: UInt64 = 0
                for (at, byte) in word.utf8.enumerated() { key |= UInt64(byte) << (8 * at) }
                table[key, default: 0] |= 1 << index
            }
        }
        return table
    }()

    static func language(of text: String) -> String? {
        var counts = [Int](repeating: 0, count: lists.count)
        // Words are read scalar by scalar, lowercased, as the bytes of `table`'s keys: a
        // walk by `Character` with `lowercased()` took a third of an EPUB export.
        var key: UInt64 = 0, length = 0
        func endWord() {
            if (1...8).contains(length), let languages = table[key] {
                for index in counts.indices where languages & (1 << index) != 0 { counts[index] += 1 }
            }
            key = 0
            length = 0
        }
        func append(_ byte: UInt8) {
            if length < 8 { key |= UInt64(byte) << (8 * length) }
            length += 1
        }
        // The first few hundred words tell it; the rest of a long entry is not read.
        for scalar in text.unicodeScalars.prefix(3000) {
            let v = scalar.value
            if v < 0x80 {
                guard (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v) else { endWord(); continue }
                append(UInt8(v) | 0x20)
            } else if scalar.properties.isAlphabetic {
                for byte in (scalar.properties.isLowercase ? String(scalar) : scalar.properties.lowercaseMapping).utf8 { append(byte) }
            } else {
                endWord()
            }
        }
        endWord()
        guard let top = counts.indices.max(by: { counts[$0] < counts[$1] }), counts[top] >= 2 else { return nil }
        let second = counts.indices.filter { $0 != top }.map { counts[$0] }.max() ?? 0
        return counts[top] >= 2 * second ? lists[top].code : nil
    }
}
