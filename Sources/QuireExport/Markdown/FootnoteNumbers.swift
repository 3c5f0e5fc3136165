/// Footnotes numbered as a reader counts them: 1, 2, 3 in the order the text first refers to
/// them, whatever their labels (`[^1]`, `[^source]`). cmark-gfm's HTML numbers them so; this
/// does the same for the PDF's tree.
enum FootnoteNumbers {
    static func numbered(_ blocks: [MarkdownBlock]) -> [MarkdownBlock] {
        var numbers: [String: Int] = [:]
        for block in blocks { collect(block, into: &numbers) }
        guard !numbers.isEmpty else { return blocks }
        // cmark gives a definition no label of its own, but gathers the definitions at the end
        // in the order of their first reference, leaving out those never referred to.
        var definition = 0
        return blocks.map { block in
            guard case .footnote(let label, let children) = block else { return renumber(block, numbers) }
            definition += 1
            let number = numbers[label] ?? definition
            return renumber(.footnote(label: String(number), children), numbers)
        }
    }

    private static func collect(_ block: MarkdownBlock, into numbers: inout [String: Int]) {
        func inlines(_ content: [MarkdownInline]) {
            for inline in content {
                switch inline {
                case .footnoteReference(let label): if numbers[label] == nil { numbers[label] = numbers.count + 1 }
                case .emphasis(let c), .strong(let c), .strikethrough(let c), .highlight(let c), .link(_, let c): inlines(c)
                default: break
                }
            }
        }
        switch block {
        case .paragraph(let c), .heading(_, let c): inlines(c)
        case .list(_, _, let items): for item in items { for b in item.blocks { collect(b, into: &numbers) } }
        case .quote(let children), .footnote(_, let children): for b in children { collect(b, into: &numbers) }
        case .callout(_, let title, let children):
            inlines(title)
            for b in children { collect(b, into: &numbers) }
        case .table(let rows, _): for row in rows { for cell in row { inlines(cell) } }
        case .code, .rule: break
        }
    }

    private static func renumber(_ block: MarkdownBlock, _ numbers: [String: Int]) -> MarkdownBlock {
        func inlines(_ content: [MarkdownInline]) -> [MarkdownInline] {
            content.map { inline in
                switch inline {
                case .footnoteReference(let label): return .footnoteReference(numbers[label].map(String.init) ?? label)
                case .emphasis(let c): return .emphasis(inlines(c))
                case .strong(let c): return .strong(inlines(c))
                case .strikethrough(let c): return .strikethrough(inlines(c))
                case .highlight(let c): return .highlight(inlines(c))
                case .link(let url, let c): return .link(url: url, inlines(c))
                default: return inline
                }
            }
        }
        let blocks = { (children: [MarkdownBlock]) in children.map { renumber($0, numbers) } }
        switch block {
        case .paragraph(let c): return .paragraph(inlines(c))
        case .heading(let level, let c): return .heading(level: level, inlines(c))
        case .list(let ordered, let start, let items):
            return .list(ordered: ordered, start: start, items: items.map { MarkdownListItem(checked: $0.checked, blocks: blocks($0.blocks)) })
        case .quote(let children): return .quote(blocks(children))
        case .footnote(let label, let children): return .footnote(label: label, blocks(children))
        case .callout(let kind, let title, let children): return .callout(kind: kind, title: inlines(title), blocks(children))
        case .table(let rows, let header): return .table(rows: rows.map { $0.map(inlines) }, headerRows: header)
        case .code, .rule: return block
        }
    }
}
