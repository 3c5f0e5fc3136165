/// A name or a bit of text from a source file, fit to stand in a one-line error: quoted,
/// at most 60 characters, control characters shown as `\u{…}`.
enum TextSnippet {
    static func quoted(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(60) {
            if scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return "\"" + out + (text.unicodeScalars.count > 60 ? "…" : "") + "\""
    }
}
