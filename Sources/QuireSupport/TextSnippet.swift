/// A name or a bit of text from a source file, fit to stand in a one-line error: quoted,
/// at most `limit` characters (60 unless said), control characters, line and paragraph
/// separators and bidirectional controls shown as `\u{…}`. Joiners stay: Persian and emoji
/// need them.
package enum TextSnippet {
    package static func quoted(_ text: String, limit: Int = 60) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(limit) {
            if needsEscape(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return "\"" + out + (text.unicodeScalars.count > limit ? "…" : "") + "\""
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: [.control, .lineSeparator, .paragraphSeparator].contains(scalar.properties.generalCategory)
        }
    }
}
