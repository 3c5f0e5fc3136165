/// The words of Markdown as a person reads them, for one-line uses (a title made from an
/// untitled entry's first line, a search snippet): an image or attachment reference goes,
/// a link leaves its words, a leading heading or list mark and emphasis marks go. Not a
/// renderer (books use cmark-gfm): a cheap, total pass over the text.
package enum PlainText {
    package static func of(_ markdown: String) -> String {
        var out = ""
        out.reserveCapacity(markdown.utf8.count)
        var rest = Substring(markdown)
        while let c = rest.first {
            if c == "!", rest.dropFirst().first == "[", let (_, after) = link(rest.dropFirst()) {
                rest = after  // an image: nothing of it is words of the text
                continue
            }
            if c == "[", let (words, after) = link(rest) {
                out += of(String(words))
                rest = after
                continue
            }
            if c == "*" || c == "_" || c == "`" || c == "~" {
                // Emphasis, code and strikethrough marks; a lone `_` inside a word stays.
                let previous = out.last, next = rest.dropFirst().first
                let inWord = c == "_" && previous.map { $0.isLetter || $0.isNumber } == true && next.map { $0.isLetter || $0.isNumber } == true
                if !inWord { rest = rest.dropFirst(); continue }
            }
            out.append(c)
            rest = rest.dropFirst()
        }
        return out
    }

    /// One line's words: leading `#`, `>`, `-`, `*` or `1.` marks dropped too.
    package static func line(_ markdown: Substring) -> String {
        var line = markdown.drop { $0 == " " || $0 == "\t" }
        while let first = line.first, first == "#" || first == ">" { line = line.dropFirst().drop { $0 == " " || $0 == "#" || $0 == ">" } }
        if line.hasPrefix("- ") || line.hasPrefix("+ ") || line.hasPrefix("* ") { line = line.dropFirst(2) }
        if line.hasPrefix("- [ ] ") || line.hasPrefix("- [x] ") { line = line.dropFirst(6) }
        return of(String(line)).trimmingCharacters(in: .whitespaces)
    }

    /// `[words](target)` at the start of `text`: its words and what follows it.
    private static func link(_ text: Substring) -> (Substring, Substring)? {
        guard text.first == "[", let close = text.firstIndex(of: "]") else { return nil }
        let after = text[text.index(after: close)...]
        guard after.first == "(", let end = after.firstIndex(of: ")") else { return nil }
        return (text[text.index(after: text.startIndex)..<close], after[after.index(after: end)...])
    }
}
