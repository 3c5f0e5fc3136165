/// Text from outside (entry text, server object names) made safe to print: control
/// characters could move the cursor, rewrite earlier lines, set the window title or, on some
/// terminals, answer back; bidirectional overrides could make a line read other than it is.
/// They are shown as escapes (`\x1b`, `<U+202E>`) instead.
enum TerminalText {
    /// - Parameter keepingNewlines: true for multi-line output (`show`); error lines pass false,
    ///   so whatever they quote stays on one line.
    static func escaped(_ text: String, keepingNewlines: Bool = true) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingNewlines: keepingNewlines) }) else { return text }
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar, keepingNewlines: keepingNewlines) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case _ where scalar.value < 0x100: out += "\\x" + hex(scalar.value, digits: 2)
            default: out += "<U+" + hex(scalar.value, digits: 4).uppercased() + ">"
            }
        }
        return out
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, keepingNewlines: Bool) -> Bool {
        switch scalar.value {
        case 0x0A: return !keepingNewlines
        case 0x09: return false
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x202A...0x202E, 0x2066...0x2069: return true  // bidi embeddings, overrides, isolates
        default: return false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
