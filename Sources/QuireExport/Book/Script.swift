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

    public init(of text: String) {
        var counts: [String: Int] = [:]
        var direction: String?
        var persian = false, ukrainian = false, belarusian = false, serbian = false
        var seen = 0
        for scalar in text.unicodeScalars {
            let v = scalar.value
            guard scalar.properties.isAlphabetic || (0x4E00...0x9FFF).contains(v) else { continue }
            seen += 1
            if seen > 2000 { break }
            let script: String
            switch v {
            case 0x0041...0x024F: script = "latin"
            case 0x0370...0x03FF: script = "el"
            case 0x0400...0x04FF:
                script = "cyrillic"
                switch scalar {
                case "і", "ї", "є", "ґ", "І", "Ї", "Є", "Ґ": ukrainian = true
                case "ў", "Ў": belarusian = true
                case "ђ", "ћ", "џ", "љ", "њ", "ј", "Ђ", "Ћ", "Џ", "Љ", "Њ", "Ј": serbian = true
                default: break
                }
            case 0x0590...0x05FF: script = "he"
            case 0x0600...0x06FF, 0x0750...0x077F, 0xFB50...0xFDFF, 0xFE70...0xFEFF:
                script = "arabic"
                if ["پ", "چ", "ژ", "گ", "ک", "ی"].contains(scalar) { persian = true }
            case 0x0E00...0x0E7F: script = "th"
            case 0x3040...0x30FF: script = "kana"
            case 0xAC00...0xD7AF, 0x1100...0x11FF: script = "ko"
            case 0x4E00...0x9FFF, 0x3400...0x4DBF: script = "han"
            default: script = "other"
            }
            counts[script, default: 0] += 1
            if direction == nil {
                if script == "he" || script == "arabic" { direction = "rtl" } else if script != "other" { direction = "ltr" }
            }
        }
        self.direction = direction
        let top = counts.filter { $0.key != "other" }.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
        switch top {
        case "kana": code = "ja"
        case "han": code = counts["kana", default: 0] > 0 ? "ja" : "zh"
        case "arabic": code = persian ? "fa" : "ar"
        case "cyrillic": code = ukrainian ? "uk" : belarusian ? "be" : serbian ? "sr" : "ru"
        case "el", "he", "th", "ko": code = top
        default: code = nil
        }
    }
}
