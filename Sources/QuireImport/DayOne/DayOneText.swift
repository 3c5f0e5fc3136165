/// Day One's entry text made Quire's: its Markdown without the backslash escapes Day One adds
/// to plain punctuation, its `dayone-moment` references turned into Quire's own, and a first
/// `# Title` line taken as the title.
enum DayOneText {
    /// Punctuation Day One escapes that means nothing to Markdown in running text. Escapes
    /// that do matter (`\*`, `\_`, `\[`, `\#`, `` \` ``, `\\`, `\<`, `\|`, `\~`) stay, as do the
    /// few places where dropping one would make a list (`1\.`, `\-` or `\+` at a line's start).
    static let plain: Set<Character> = [".", "!", "(", ")", "-", "+", ":", ",", "?", ";", "'", "\"", "/", "=", "{", "}", "$", "%", "&", "@", "^"]

    static func unescape(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        let chars = Array(text)
        var atLineStart = true  // only spaces so far on this line
        var digitsOnly = false  // the line so far is spaces then digits
        func note(_ c: Character) {
            if c == "\n" {
                (atLineStart, digitsOnly) = (true, false)
            } else if c == " " && atLineStart {
            } else if c.isASCII && c.isNumber && (atLineStart || digitsOnly) {
                (atLineStart, digitsOnly) = (false, true)
            } else {
                (atLineStart, digitsOnly) = (false, false)
            }
        }
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "\\", i + 1 < chars.count, plain.contains(chars[i + 1]) {
                let next = chars[i + 1]
                let after: Character? = i + 2 < chars.count ? chars[i + 2] : nil
                let endsWord = after == nil || after == " " || after == "\n"
                let makesMarkup = (atLineStart && (next == "-" || next == "+") && endsWord)
                    || (digitsOnly && (next == "." || next == ")") && endsWord)
                    || (next == "!" && after == "[")
                if !makesMarkup {
                    out.append(next)
                    note(next)
                    i += 2
                    continue
                }
            }
            out.append(c)
            note(c)
            i += 1
        }
        return out
    }

    /// A reference found in the text: the kind of moment and Day One's identifier.
    struct Moment: Equatable {
        enum Kind: String { case photo, audio, video, pdfAttachment }
        var kind: Kind
        var identifier: String
    }

    /// `text` with each `![…](dayone-moment…)` image replaced by what `replace` returns for its
    /// moment: the new link target, or, when it returns nil (the export lacks the file), the
    /// whole image replaced by a short note in parentheses.
    static func replaceMoments(in text: String, _ replace: (Moment) -> String?) -> String {
        let marker = "(dayone-moment:"
        guard text.contains(marker) else { return text }
        var out = ""
        var rest = Substring(text)
        while let open = rest.range(of: marker) {
            guard let close = rest[open.upperBound...].firstIndex(of: ")"),
                  let moment = parse(String(rest[rest.index(after: open.lowerBound)..<close])) else {
                out += rest[..<open.upperBound]
                rest = rest[open.upperBound...]
                continue
            }
            // The image's `![alt]` ends right before the parenthesis.
            let before = rest[..<open.lowerBound]
            var imageStart: Substring.Index?
            if before.hasSuffix("]"), let bang = before.range(of: "![", options: .backwards), !before[bang.upperBound...].contains("\n") {
                imageStart = bang.lowerBound
            }
            if let target = replace(moment) {
                out += before + "(" + target + ")"
            } else {
                out += before[..<(imageStart ?? before.endIndex)]
                out += "(" + (moment.kind == .pdfAttachment ? "PDF" : moment.kind.rawValue) + " missing from the Day One export)"
            }
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    /// `dayone-moment://ID` (a photo) or `dayone-moment:/<kind>/ID`.
    static func parse(_ target: String) -> Moment? {
        if target.hasPrefix("dayone-moment://") {
            let id = String(target.dropFirst("dayone-moment://".count))
            return id.isEmpty || id.contains("/") ? nil : Moment(kind: .photo, identifier: id)
        }
        let parts = target.dropFirst("dayone-moment:/".count).split(separator: "/")
        guard target.hasPrefix("dayone-moment:/"), parts.count == 2, let kind = Moment.Kind(rawValue: String(parts[0])) else { return nil }
        return Moment(kind: kind, identifier: String(parts[1]))
    }
}
