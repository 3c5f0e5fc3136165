/// Day One's entry text made Quire's: its Markdown without the backslash escapes Day One adds
/// to plain punctuation, its `dayone-moment` references turned into Quire's own, and a first
/// `# Title` line taken as the title.
enum DayOneText {
    /// Punctuation Day One escapes that means nothing to Markdown in running text. Escapes
    /// that do matter (`\*`, `\_`, `\[`, `\#`, `` \` ``, `\\`, `\<`, `\|`, `\~`) stay, as do the
    /// few places where dropping one would make a list (`1\.`, `\-` or `\+` at a line's start).
    static let plain = Set(".!()-+:,?;'\"/={}$%&@^".utf8)

    /// The text read as UTF-8 bytes: everything this looks for is ASCII, and no byte of a
    /// character in another script is. (Foundation's `contains` and `range(of:)` on a
    /// `String` compare character by character through ICU: they were a sixth of a Day One
    /// import of 10,000 entries.)
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
        let bytes = Array(text.utf8)
        let marker = Array("(dayone-moment:".utf8)
        guard var open = firstIndex(of: marker, in: bytes, from: 0) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var copied = 0  // bytes before this are in `out`
        var from = 0  // where the text after the last reference (or marker not one) begins
        while true {
            let afterMarker = open + marker.count
            if let close = bytes[afterMarker...].firstIndex(of: UInt8(ascii: ")")),
               let moment = parse(String(decoding: bytes[(open + 1)..<close], as: UTF8.self)) {
                // The image's `![alt]` ends right before the parenthesis, on one line.
                var imageStart: Int?
                if open > from, bytes[open - 1] == UInt8(ascii: "]"),
                   let bang = lastIndex(of: Array("![".utf8), in: bytes, from: from, to: open),
                   !bytes[(bang + 2)..<open].contains(UInt8(ascii: "\n")) {
                    imageStart = bang
                }
                if let target = replace(moment) {
                    out += bytes[copied..<open]
                    out += Array(("(" + target + ")").utf8)
                } else {
                    out += bytes[copied..<(imageStart ?? open)]
                    out += Array(("(" + (moment.kind == .pdfAttachment ? "PDF" : moment.kind.rawValue) + " missing from the Day One export)").utf8)
                }
                (copied, from) = (close + 1, close + 1)
            } else {
                from = afterMarker
            }
            guard let next = firstIndex(of: marker, in: bytes, from: from) else { break }
            open = next
        }
        out += bytes[copied...]
        return String(decoding: out, as: UTF8.self)
    }

    /// Where `needle` first starts in `bytes` at or after `from`.
    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard let head = needle.first, needle.count <= bytes.count else { return nil }
        var i = from
        while i <= bytes.count - needle.count {
            guard let at = bytes[i...(bytes.count - needle.count)].firstIndex(of: head) else { return nil }
            if bytes[at..<(at + needle.count)].elementsEqual(needle) { return at }
            i = at + 1
        }
        return nil
    }

    /// Where `needle` last starts in `bytes[from..<to]`, wholly inside it.
    private static func lastIndex(of needle: [UInt8], in bytes: [UInt8], from: Int, to: Int) -> Int? {
        var at = to - needle.count
        while at >= from {
            if bytes[at..<(at + needle.count)].elementsEqual(needle) { return at }
            at -= 1
        }
        return nil
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
