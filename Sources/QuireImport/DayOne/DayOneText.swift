import QuireSupport

/// Day One's entry text made Quire's: its Markdown without the backslash escapes Day One adds
/// to plain punctuation, its `dayone-moment` references turned into Quire's own, and a first
/// `# Title` line taken as the title.
enum DayOneText {
    /// Punctuation Day One escapes that means nothing to Markdown in running text. Escapes
    /// that do matter (`\*`, `\_`, `\[`, `\#`, `` \` ``, `\\`, `\<`, `\|`, `\~`) stay, as do the
    /// few places where dropping one would make a list (`1\.`, `\-` or `\+` at a line's start).
    static let plain = Set(".!()-+:,?;'\"/={}$%&@^".utf8)

    /// Read as UTF-8 bytes, not characters: everything it looks for is ASCII, and no byte of
    /// a character in another script is (`containsBytes`).
    static func unescape(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let backslash = UInt8(ascii: "\\")
        guard bytes.contains(backslash) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var atLineStart = true  // only spaces so far on this line
        var digitsOnly = false  // the line so far is spaces then digits
        func note(_ c: UInt8) {
            if c == UInt8(ascii: "\n") {
                (atLineStart, digitsOnly) = (true, false)
            } else if c == UInt8(ascii: " ") && atLineStart {
            } else if c &- UInt8(ascii: "0") < 10 && (atLineStart || digitsOnly) {
                (atLineStart, digitsOnly) = (false, true)
            } else {
                (atLineStart, digitsOnly) = (false, false)
            }
        }
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            if c == backslash, i + 1 < bytes.count, plain.contains(bytes[i + 1]) {
                let next = bytes[i + 1]
                let after: UInt8? = i + 2 < bytes.count ? bytes[i + 2] : nil
                let endsWord = after.map { [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains($0) } ?? true
                let makesMarkup = (atLineStart && (next == UInt8(ascii: "-") || next == UInt8(ascii: "+")) && endsWord)
                    || (digitsOnly && (next == UInt8(ascii: ".") || next == UInt8(ascii: ")")) && endsWord)
                    || (next == UInt8(ascii: "!") && after == UInt8(ascii: "["))
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
        return String(decoding: out, as: UTF8.self)
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
        guard text.containsBytes(marker) else { return text }
        var out = ""
        var rest = Substring(text)
        var parens = NextBytes(")")
        while let open = rest.firstRange(ofBytes: marker) {
            guard let close = parens.first(in: rest[open.upperBound...])?.lowerBound,
                  let moment = parse(String(rest[rest.index(after: open.lowerBound)..<close])) else {
                out += rest[..<open.upperBound]
                rest = rest[open.upperBound...]
                continue
            }
            // The image's `![alt]` ends right before the parenthesis.
            let before = rest[..<open.lowerBound]
            var imageStart: Substring.Index?
            if before.hasSuffix("]"), let bang = before.lastRange(ofBytes: "!["), !before[bang.upperBound...].containsBytes("\n") {
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
