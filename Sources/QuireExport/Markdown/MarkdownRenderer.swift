import CCmark
import Foundation
import QuireStore

/// Entry bodies from CommonMark + GFM (tables, strikethrough, task lists, autolinks) to HTML
/// with libcmark-gfm. Raw HTML in an entry is shown as text, never passed through: every
/// HTML node is turned into a text node before rendering. cmark decodes entities such as
/// `&nbsp;` into characters, so the output holds only `&amp; &lt; &gt; &quot;`.
/// The only file that talks to libcmark-gfm.
package enum MarkdownRenderer {
    static let extensionNames = ["table", "strikethrough", "tasklist", "autolink"]
    private static let registered: Bool = {
        cmark_gfm_core_extensions_ensure_registered()
        return true
    }()

    /// Renders `markdown` to an HTML fragment whose void elements are self-closed (`<br />`).
    /// `resolve` gives each image or link naming one of the entry's attachments
    /// (`quire:media/<id>`) its target in the output; where it gives none, the image goes and
    /// the link leaves only its text. `entryLink` does the same for links to other entries
    /// (`quire:entry/<id>`).
    package static func html(_ markdown: String, resolve: (_ mediaID: String, _ isImage: Bool) -> String? = { _, _ in nil },
                            entryLink: (_ entryID: String) -> String? = { _ in nil }) -> String {
        parsed(markdown, resolve: resolve, entryLink: entryLink) { document, parser in
            guard let rendered = cmark_render_html(document, options, cmark_parser_get_syntax_extensions(parser)) else { return nil }
            defer { free(rendered) }
            return String(cString: rendered)
        } ?? escapeAsParagraph(markdown)
    }

    /// The same parse as `html`, as a tree of blocks (for the PDF book).
    static func blocks(_ markdown: String, resolve: (_ mediaID: String, _ isImage: Bool) -> String? = { _, _ in nil },
                       entryLink: (_ entryID: String) -> String? = { _ in nil }) -> [MarkdownBlock] {
        let tree = parsed(markdown, resolve: resolve, entryLink: entryLink) { document, _ in children(of: document).compactMap(block) }
            ?? [.paragraph([.text(markdown)])]
        return FootnoteNumbers.numbered(tree)
    }

    private static let options = CMARK_OPT_DEFAULT | CMARK_OPT_FOOTNOTES

    /// Parses `markdown` with the GFM extensions, shows raw HTML as text, resolves references,
    /// and hands the document to `body`; nil when cmark cannot parse.
    private static func parsed<T>(_ markdown: String, resolve: (String, Bool) -> String?, entryLink: (String) -> String?,
                                  _ body: (OpaquePointer, OpaquePointer) -> T?) -> T? {
        _ = registered
        guard let parser = cmark_parser_new(options) else { return nil }
        defer { cmark_parser_free(parser) }
        for name in extensionNames {
            if let ext = cmark_find_syntax_extension(name) { cmark_parser_attach_syntax_extension(parser, ext) }
        }
        let shown = ObsidianText.forBook(markdown)
        cmark_parser_feed(parser, shown, shown.utf8.count)
        guard let document = cmark_parser_finish(parser) else { return nil }
        defer { cmark_node_free(document) }
        MarkdownDepth.flatten(document)
        showRawHTMLAsText(document)
        // Obsidian's marks, where the text has any: most entries have none, and these walk the tree.
        if holds("==", in: shown) {
            cmark_consolidate_text_nodes(document)
            ObsidianTree.markHighlights(document)
        }
        if holds("[!", in: shown) { ObsidianTree.makeCallouts(document) }
        if holds("quire:", in: markdown) {
            resolveReferences(document, resolve, entryLink)
        }
        return body(document, parser)
    }

    /// Whether `text` holds `needle` (`quire:`, which both reference prefixes start with; an
    /// Obsidian mark), by a byte search: Foundation's `contains` folds the whole text first,
    /// and this runs for every entry.
    static func holds(_ needle: String, in text: String) -> Bool {
        let needle = Array(needle.utf8)
        var text = text
        return text.withUTF8 { bytes in
            guard let first = needle.first, bytes.count >= needle.count else { return false }
            for start in 0...(bytes.count - needle.count) where bytes[start] == first {
                if (1..<needle.count).allSatisfy({ bytes[start + $0] == needle[$0] }) { return true }
            }
            return false
        }
    }

    static func children(of node: OpaquePointer) -> [OpaquePointer] {
        var result: [OpaquePointer] = []
        var child = cmark_node_first_child(node)
        while let current = child {
            result.append(current)
            child = cmark_node_next(current)
        }
        return result
    }

    static func literal(_ node: OpaquePointer) -> String { cmark_node_get_literal(node).map { String(cString: $0) } ?? "" }

    private static func block(_ node: OpaquePointer) -> MarkdownBlock? {
        let kind = cmark_node_get_type_string(node).map { String(cString: $0) } ?? ""
        switch cmark_node_get_type(node) {
        case CMARK_NODE_PARAGRAPH: return .paragraph(inlines(of: node))
        case CMARK_NODE_HEADING: return .heading(level: Int(cmark_node_get_heading_level(node)), inlines(of: node))
        case CMARK_NODE_BLOCK_QUOTE: return .quote(children(of: node).compactMap(block))
        case CMARK_NODE_CODE_BLOCK:
            let code = literal(node)
            return .code(code.hasSuffix("\n") ? String(code.dropLast()) : code)
        case CMARK_NODE_THEMATIC_BREAK: return .rule
        case CMARK_NODE_LIST:
            let items = children(of: node).map { item -> MarkdownListItem in
                let isTask = cmark_node_get_type_string(item).map { String(cString: $0) } == "tasklist"
                return MarkdownListItem(checked: isTask ? cmark_gfm_extensions_get_tasklist_item_checked(item) : nil,
                                        blocks: children(of: item).compactMap(block))
            }
            return .list(ordered: cmark_node_get_list_type(node) == CMARK_ORDERED_LIST, start: Int(cmark_node_get_list_start(node)), items: items)
        case CMARK_NODE_FOOTNOTE_DEFINITION: return .footnote(label: literal(node), children(of: node).compactMap(block))
        case CMARK_NODE_CUSTOM_BLOCK:
            // Only callouts are made so (`ObsidianTree`): the title's block, then the rest.
            guard let callout = ObsidianTree.callout(node) else { return nil }
            return .callout(kind: callout.kind, title: inlines(of: callout.title), children(of: node).dropFirst().compactMap(block))
        default:
            guard kind == "table" else { return nil }
            let rows = children(of: node)
            let header = rows.prefix { cmark_gfm_extensions_get_table_row_is_header($0) != 0 }.count
            return .table(rows: rows.map { children(of: $0).map(inlines) }, headerRows: header)
        }
    }

    private static func inlines(of node: OpaquePointer) -> [MarkdownInline] { children(of: node).compactMap(inline) }

    private static func inline(_ node: OpaquePointer) -> MarkdownInline? {
        switch cmark_node_get_type(node) {
        case CMARK_NODE_TEXT: return .text(literal(node))
        case CMARK_NODE_EMPH: return .emphasis(inlines(of: node))
        case CMARK_NODE_STRONG: return .strong(inlines(of: node))
        case CMARK_NODE_CODE: return .code(literal(node))
        case CMARK_NODE_SOFTBREAK: return .softBreak
        case CMARK_NODE_LINEBREAK: return .lineBreak
        case CMARK_NODE_LINK: return .link(url: cmark_node_get_url(node).map { String(cString: $0) } ?? "", inlines(of: node))
        case CMARK_NODE_IMAGE:
            return .image(url: cmark_node_get_url(node).map { String(cString: $0) } ?? "", alt: PlainInline.text(inlines(of: node)))
        case CMARK_NODE_FOOTNOTE_REFERENCE: return .footnoteReference(literal(node))
        case CMARK_NODE_CUSTOM_INLINE: return .highlight(inlines(of: node))  // only highlights are made so
        default:
            if cmark_node_get_type_string(node).map({ String(cString: $0) }) == "strikethrough" { return .strikethrough(inlines(of: node)) }
            return nil
        }
    }

    /// Replaces each raw HTML block with a paragraph of its literal text, and each inline HTML
    /// node with a text node, so the tags print as written.
    private static func showRawHTMLAsText(_ document: OpaquePointer) {
        for node in nodes(of: [CMARK_NODE_HTML_BLOCK, CMARK_NODE_HTML_INLINE], in: document) {
            let literal = cmark_node_get_literal(node).map { String(cString: $0) } ?? ""
            guard let text = cmark_node_new(CMARK_NODE_TEXT) else { continue }
            if cmark_node_get_type(node) == CMARK_NODE_HTML_BLOCK {
                let trimmed = literal.hasSuffix("\n") ? String(literal.dropLast()) : literal
                cmark_node_set_literal(text, trimmed)
                guard let paragraph = cmark_node_new(CMARK_NODE_PARAGRAPH) else { cmark_node_free(text); continue }
                cmark_node_append_child(paragraph, text)
                cmark_node_replace(node, paragraph)
            } else {
                cmark_node_set_literal(text, literal)
                cmark_node_replace(node, text)
            }
            cmark_node_free(node)
        }
    }

    private static func resolveReferences(_ document: OpaquePointer, _ resolve: (String, Bool) -> String?, _ entryLink: (String) -> String?) {
        for node in nodes(of: [CMARK_NODE_IMAGE, CMARK_NODE_LINK], in: document) {
            guard let url = cmark_node_get_url(node).map({ String(cString: $0) }) else { continue }
            let isImage = cmark_node_get_type(node) == CMARK_NODE_IMAGE
            let target: String?
            if let id = MediaReference.id(inTarget: url) {
                target = resolve(id, isImage)
            } else if let id = EntryReference.id(inTarget: url) {
                target = isImage ? nil : entryLink(id)
            } else {
                continue
            }
            if let target {
                cmark_node_set_url(node, target)
                continue
            }
            if !isImage {
                while let child = cmark_node_first_child(node) { cmark_node_insert_before(node, child) }
            }
            cmark_node_unlink(node)
            cmark_node_free(node)
        }
    }

    /// The nodes of `types` in `document`, collected before any is changed (the iterator must
    /// not see the tree change under it).
    static func nodes(of types: [cmark_node_type], in document: OpaquePointer) -> [OpaquePointer] {
        var found: [OpaquePointer] = []
        guard let iterator = cmark_iter_new(document) else { return [] }
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator) else { continue }
            if types.contains(cmark_node_get_type(node)) { found.append(node) }
        }
        cmark_iter_free(iterator)
        return found
    }

    private static func escapeAsParagraph(_ text: String) -> String {
        "<p>" + XMLText.escape(text) + "</p>\n"
    }
}
