/// Text placed into Markdown and YAML so that it reads back as the same text.
enum MarkdownText {
    /// A YAML double-quoted scalar: `"…"` with `\` `"` and every control or line-breaking
    /// character escaped, so any title, tag or name is one valid line of YAML.
    static func yamlQuoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                let v = scalar.value
                if v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029 || v == 0xFEFF || (0xD800...0xDFFF).contains(v) || v == 0xFFFE || v == 0xFFFF {
                    out += v <= 0xFF ? "\\x" + String(v, radix: 16).leftPadded(2) : "\\u" + String(v, radix: 16).leftPadded(4)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// Inline text that Markdown shows literally: punctuation that could start emphasis,
    /// code, links, HTML or a heading is backslash-escaped, and line breaks become spaces.
    static func inline(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\", "`", "*", "_", "[", "]", "<", ">", "#", "|", "~", "&", "!", "$":
                out += "\\"
                out.unicodeScalars.append(scalar)
            case "\n", "\r", "\t": out += " "
            default: out.unicodeScalars.append(scalar)
            }
        }
        // A line starting with "-", "+", "=" or "1." would become a list or a heading underline.
        if let first = out.unicodeScalars.first, ["-", "+", "="].contains(first) { out = "\\" + out }
        var digits = out.prefix { $0.isNumber && $0.isASCII }
        if !digits.isEmpty, out.dropFirst(digits.count).first.map({ $0 == "." || $0 == ")" }) == true {
            digits = out.prefix(digits.count)
            out = digits + "\\" + out.dropFirst(digits.count)
        }
        return out
    }
}
