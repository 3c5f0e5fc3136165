import QuireStore

/// The language and writing direction of a piece of text, where its script tells them.
/// Quire stores no language per entry, so this is read off the letters: a script that
/// belongs to one language (kana → ja, Hangul → ko, Greek → el, Hebrew → he, Thai → th)
/// or whose language shows in a few letters (Arabic script: Persian letters → fa, else ar;
/// Cyrillic: і/ї/є/ґ → uk, ў → be, ђ/ћ/џ/љ/њ/ј → sr, else ru; Han without kana → zh).
/// Latin text gets no guess: too many languages share it.
public struct TextLanguage: Equatable, Sendable {
    /// A BCP 47 tag, or nil when the script does not tell.
    public let code: String?
    /// "rtl" or "ltr", from the first letter with a strong direction; nil if none.
    public let direction: String?

    /// What an entry's title, body and transcripts say.
    public init(of entry: Entry) {
        var text = entry.title + "\n" + entry.body
        for media in entry.media where !media.transcript.isEmpty { text += "\n" + media.transcript }
        self.init(of: text)
    }

    init(code: String?, direction: String?) {
        self.code = code
        self.direction = direction
    }

    /// Scripts counted, in alphabetical order (a tie goes to the first).
    private static let scripts = ["arabic", "cyrillic", "el", "han", "he", "kana", "ko", "latin", "th"]
    private enum Index {
        static let arabic = 0, cyrillic = 1, el = 2, han = 3, he = 4, kana = 5, ko = 6, latin = 7, th = 8
    }

    public init(of text: String) {
        // Counted in a small array, with ASCII letters told without a Unicode property lookup:
        // this runs over every entry of every book.
        var counts = [Int](repeating: 0, count: Self.scripts.count)
        var direction: String?
        var persian = false, ukrainian = false, belarusian = false, serbian = false
        var seen = 0
        for scalar in text.unicodeScalars {
            let v = scalar.value
            let script: Int?
            if v < 0x80 {
                guard (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v) else { continue }
                script = Index.latin
            } else {
                guard scalar.properties.isAlphabetic || (0x4E00...0x9FFF).contains(v) else { continue }
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
                case 0x0E00...0x0E7F: script = Index.th
                case 0x3040...0x30FF: script = Index.kana
                case 0xAC00...0xD7AF, 0x1100...0x11FF: script = Index.ko
                case 0x4E00...0x9FFF, 0x3400...0x4DBF: script = Index.han
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
        case "han": code = counts[Index.kana] > 0 ? "ja" : "zh"
        case "arabic": code = persian ? "fa" : "ar"
        case "cyrillic": code = ukrainian ? "uk" : belarusian ? "be" : serbian ? "sr" : "ru"
        case let name? where ["el", "he", "th", "ko"].contains(name): code = name
        default: code = nil
        }
    }
}
