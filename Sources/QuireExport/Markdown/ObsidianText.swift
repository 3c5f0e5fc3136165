import QuireSupport

/// What Obsidian stores in a note but does not show as written, made ready for a book (EPUB
/// and PDF) before cmark reads it: `%%comments%%` are left out (Obsidian hides them; an
/// unclosed one hides the rest of the note, as there), and a `[[link]]` to a note the journal
/// does not hold is its words (`[[Note|words]]` → words, `[[Note#Part]]` → Note > Part). Code,
/// fenced or inline, is left as written. The store and the Markdown export keep the text as
/// it was; highlights and callouts are made in the parsed tree (`MarkdownRenderer`).
enum ObsidianText {
    static func forBook(_ markdown: String) -> String {
        guard MarkdownRenderer.holds("%%", in: markdown) || MarkdownRenderer.holds("[[", in: markdown) else { return markdown }
        var out = ""
        out.reserveCapacity(markdown.utf8.count)
        var inComment = false
        var fence: Substring?
        // "\r\n" is one Character, not "\n": a text with Windows line ends has lines too.
        for (index, line) in markdown.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let lead = line.prefix { $0 == " " }
            let body = line.dropFirst(lead.count)
            if !inComment, lead.count <= 3, let marker = ["```", "~~~"].first(where: { body.hasPrefix($0) }) {
                let run = body.prefix { $0 == marker.first }
                if fence == nil {
                    fence = run
                } else if let open = fence, run.count >= open.count, run.first == open.first,
                          body.dropFirst(run.count).allSatisfy(\.isWhitespace) {
                    fence = nil
                    if index > 0 { out += "\n" }
                    out += line
                    continue
                }
            }
            if let _ = fence {
                if index > 0 { out += "\n" }
                out += line
                continue
            }
            let wasInComment = inComment
            let shown = Self.line(line, inComment: &inComment)
            // A line that was all comment goes; one that was blank stays (it ends a paragraph).
            let hadComment = wasInComment || inComment || line.containsBytes("%%")
            if hadComment, shown.allSatisfy(\.isWhitespace), !line.allSatisfy(\.isWhitespace) { continue }
            if index > 0 { out += "\n" }
            out += shown
        }
        return out
    }

    /// One line outside fenced code: comments dropped (continuing across lines through
    /// `inComment`), unresolved wiki links made their words, inline code kept.
    private static func line(_ line: Substring, inComment: inout Bool) -> String {
        var out = ""
        var rest = line
        var codeRun = 0
        var closer = NextBytes("]]")
        while let c = rest.first {
            if inComment {
                if rest.hasPrefix("%%") {
                    inComment = false
                    rest = rest.dropFirst(2)
                    // `a %%note%% b` reads `a b`, not `a  b`.
                    if out.last == " ", rest.first == " " { rest = rest.dropFirst() }
                } else {
                    rest = rest.dropFirst()
                }
                continue
            }
            if c == "`" {
                let run = rest.prefix { $0 == "`" }
                codeRun = codeRun == 0 ? run.count : (codeRun == run.count ? 0 : codeRun)
                out += run
                rest = rest.dropFirst(run.count)
                continue
            }
            if codeRun == 0 {
                if rest.hasPrefix("%%") {
                    inComment = true
                    rest = rest.dropFirst(2)
                    continue
                }
                if rest.hasPrefix("[["), out.last != "!", let close = closer.first(in: rest) {
                    let inner = rest.dropFirst(2)[..<close.lowerBound]
                    // `[[x]](url)` is a CommonMark link whose text is "[x]", not a wiki link.
                    let after = rest[close.upperBound...].first
                    if !inner.isEmpty, !inner.contains("["), after != "(", after != "[" {
                        out += words(of: inner)
                        rest = rest[close.upperBound...]
                        continue
                    }
                }
            }
            out.append(c)
            rest = rest.dropFirst()
        }
        return out
    }

    /// What Obsidian shows for `[[inner]]`: its alias, else the note's name and the part.
    static func words(of inner: Substring) -> String {
        if let bar = inner.firstIndex(of: "|") {
            let alias = inner[inner.index(after: bar)...].trimmingCharacters(in: .whitespaces)
            if !alias.isEmpty { return alias }
        }
        let target = inner.prefix { $0 != "|" }
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let note = parts[0].trimmingCharacters(in: .whitespaces)
        guard parts.count == 2 else { return note }
        let part = parts[1].hasPrefix("^") ? "" : parts[1].trimmingCharacters(in: .whitespaces)
        return part.isEmpty ? note : note.isEmpty ? part : note + " > " + part
    }
}
