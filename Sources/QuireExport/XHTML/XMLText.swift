/// Text made safe for XML: characters XML 1.0 forbids (most C0 controls, U+FFFE, U+FFFF)
/// are dropped, and markup characters escaped. Entry text is outside data: a stray
/// control character in a journal must not make a page unreadable.
package enum XMLText {
    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD: return true
        case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    /// `text` without the characters XML forbids.
    package static func clean(_ text: String) -> String {
        guard !text.unicodeScalars.allSatisfy(isAllowed) else { return text }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.filter(isAllowed))
        return String(scalars)
    }

    /// `text` escaped for element content and double-quoted attribute values.
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars where isAllowed(scalar) {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
