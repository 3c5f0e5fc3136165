/// An entry body as cmark-gfm parsed it, the same tree the EPUB's HTML is rendered from,
/// as plain Swift values for a typesetter to walk (raw HTML already turned into text,
/// attachment and entry references already resolved or removed).
indirect enum MarkdownBlock: Equatable {
    case paragraph([MarkdownInline])
    case heading(level: Int, [MarkdownInline])
    case list(ordered: Bool, start: Int, items: [MarkdownListItem])
    case quote([MarkdownBlock])
    case code(String)
    case rule
    /// Rows of cells; the first `headerRows` rows are the header.
    case table(rows: [[[MarkdownInline]]], headerRows: Int)
    /// A footnote's text, where cmark gathers them: at the end. Its label is its number.
    case footnote(label: String, [MarkdownBlock])
    /// Obsidian's `> [!note] Title` (kind lowercased, the title given or the kind's name).
    case callout(kind: String, title: [MarkdownInline], [MarkdownBlock])
}

struct MarkdownListItem: Equatable {
    /// nil for a plain item; true/false for a task list item.
    var checked: Bool?
    var blocks: [MarkdownBlock]
}

indirect enum MarkdownInline: Equatable {
    case text(String)
    case emphasis([MarkdownInline])
    case strong([MarkdownInline])
    case strikethrough([MarkdownInline])
    /// Obsidian's `==highlight==`.
    case highlight([MarkdownInline])
    case code(String)
    case link(url: String, [MarkdownInline])
    case image(url: String, alt: String)
    case footnoteReference(String)
    case softBreak
    case lineBreak
}

enum PlainInline {
    /// The text of inlines with their styles dropped (an image's alt text, a heading in the outline).
    static func text(_ inlines: [MarkdownInline]) -> String {
        inlines.map { inline -> String in
            switch inline {
            case .text(let t), .code(let t): return t
            case .emphasis(let c), .strong(let c), .strikethrough(let c), .highlight(let c), .link(_, let c): return text(c)
            case .image(_, let alt): return alt
            case .footnoteReference(let label): return "[" + label + "]"
            case .softBreak, .lineBreak: return " "
            }
        }.joined()
    }
}
