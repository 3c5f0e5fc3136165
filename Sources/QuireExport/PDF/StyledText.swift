/// Text with its inline styles and links as byte ranges, built up piece by piece: what one
/// Pango layout shows. No markup language in between, so nothing in an entry needs escaping.
struct StyledText {
    enum Style: Equatable {
        case italic, bold, mono, strike, link, gray, small
        /// A marker's colour behind the text (Obsidian's `==highlight==`).
        case highlight
        /// An address (a URL, an e-mail): broken at the end of a line without a hyphen.
        case address
        /// Raised and smaller: a footnote's number in the text.
        case superscript
    }

    struct Span: Equatable {
        let start: Int
        let end: Int
        let style: Style
    }

    struct Link: Equatable {
        let range: Range<Int>
        let target: PDFCanvas.Target
    }

    private(set) var text = ""
    private(set) var spans: [Span] = []
    private(set) var links: [Link] = []
    /// A BCP 47 tag for the whole text (glyph variants, line breaking, font fallback).
    var language: String?

    init(_ text: String = "", style: Style? = nil, language: String? = nil) {
        self.language = language
        append(text, style: style)
    }

    var isEmpty: Bool { text.isEmpty }
    var byteCount: Int { text.utf8.count }

    mutating func append(_ piece: String, style: Style? = nil) {
        let start = byteCount
        text += Self.printable(piece)
        if let style, byteCount > start { spans.append(Span(start: start, end: byteCount, style: style)) }
    }

    mutating func append(_ other: StyledText) {
        let offset = byteCount
        text += other.text
        spans += other.spans.map { Span(start: $0.start + offset, end: $0.end + offset, style: $0.style) }
        links += other.links.map { Link(range: ($0.range.lowerBound + offset)..<($0.range.upperBound + offset), target: $0.target) }
    }

    /// Styles everything appended by `body` with `style`.
    mutating func styled(_ style: Style, _ body: (inout StyledText) -> Void) {
        let start = byteCount
        body(&self)
        if byteCount > start { spans.append(Span(start: start, end: byteCount, style: style)) }
    }

    /// `text` without the control characters Pango would draw as boxes (C0 but tab, line feed
    /// and the line separator; DEL; C1), as the EPUB drops those XML forbids, and without
    /// the marks of a letter past its thirtieth: no script puts as many on one letter
    /// (Unicode's stream-safe text has at most 30 in a row), and HarfBuzz places a letter's
    /// marks in time that grows with the square of their number: a letter under 50,000
    /// accents took 11 s to set.
    static func printable(_ text: String) -> String {
        let scalars = text.unicodeScalars
        // Most text has neither: told without asking what a scalar is (only a run of more
        // than 30 past U+0300 can hold too many marks).
        var past300 = 0
        guard scalars.contains(where: { scalar in
            past300 = scalar.value >= 0x300 ? past300 + 1 : 0
            return isControl(scalar) || past300 > maxMarks
        }) else { return text }
        var marks = 0
        var kept: String.UnicodeScalarView?  // made at the first scalar left out
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            marks = scalar.value >= 0x300 && Self.isMark(scalar) ? marks + 1 : 0
            if isControl(scalar) || marks > maxMarks {
                if kept == nil { kept = String.UnicodeScalarView(scalars[..<index]) }
            } else {
                kept?.append(scalar)
            }
            scalars.formIndex(after: &index)
        }
        return kept.map(String.init) ?? text
    }

    static let maxMarks = 30

    /// C0 but tab and line feed, DEL, C1.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\n" && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
    }

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// Gives the whole text `style`.
    mutating func styleAll(_ style: Style) {
        if byteCount > 0 { spans.append(Span(start: 0, end: byteCount, style: style)) }
    }

    /// Makes everything appended by `body` a link to `target`.
    mutating func linked(_ target: PDFCanvas.Target, _ body: (inout StyledText) -> Void) {
        let start = byteCount
        body(&self)
        if byteCount > start {
            spans.append(Span(start: start, end: byteCount, style: .link))
            links.append(Link(range: start..<byteCount, target: target))
        }
    }

    /// The text with trailing white space removed (a paragraph ending in a hard break).
    mutating func trimEnd() {
        while let last = text.last, last.isWhitespace { text.removeLast() }
        let end = byteCount
        spans = spans.compactMap { $0.start >= end ? nil : Span(start: $0.start, end: min($0.end, end), style: $0.style) }
        links = links.compactMap { $0.range.lowerBound >= end ? nil : Link(range: $0.range.lowerBound..<min($0.range.upperBound, end), target: $0.target) }
    }
}

/// How a block of text is set: font, size, leading and alignment.
struct TextStyle {
    enum Alignment { case natural, center, end }

    /// A Pango font description's families and style, e.g. "Noto Serif, Noto Serif CJK JP Bold".
    var font: String
    /// Points.
    var size: Double
    /// Line height as a multiple of the font's.
    var leading = 1.3
    var justify = false
    var alignment = Alignment.natural
    /// First-line indent (negative: hanging), points.
    var indent = 0.0
    var letterSpacing = 0.0
    var language: String?
}
