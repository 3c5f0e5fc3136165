import CCmark
import Foundation
import QuireStore

/// Entry bodies from CommonMark + GFM (tables, strikethrough, task lists, autolinks) to HTML
/// with libcmark-gfm. Raw HTML in an entry is shown as text, never passed through: every
/// HTML node is turned into a text node before rendering. cmark decodes entities such as
/// `&nbsp;` into characters, so the output holds only `&amp; &lt; &gt; &quot;`.
/// The only file that talks to libcmark-gfm.
public enum MarkdownRenderer {
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
    public static func html(_ markdown: String, resolve: (_ mediaID: String, _ isImage: Bool) -> String? = { _, _ in nil },
                            entryLink: (_ entryID: String) -> String? = { _ in nil }) -> String {
        _ = registered
        let options = CMARK_OPT_DEFAULT | CMARK_OPT_FOOTNOTES
        guard let parser = cmark_parser_new(options) else { return escapeAsParagraph(markdown) }
        defer { cmark_parser_free(parser) }
        for name in extensionNames {
            if let ext = cmark_find_syntax_extension(name) { cmark_parser_attach_syntax_extension(parser, ext) }
        }
        cmark_parser_feed(parser, markdown, markdown.utf8.count)
        guard let document = cmark_parser_finish(parser) else { return escapeAsParagraph(markdown) }
        defer { cmark_node_free(document) }
        showRawHTMLAsText(document)
        if markdown.contains(MediaReference.prefix) || markdown.contains(EntryReference.prefix) {
            resolveReferences(document, resolve, entryLink)
        }
        guard let rendered = cmark_render_html(document, options, cmark_parser_get_syntax_extensions(parser)) else {
            return escapeAsParagraph(markdown)
        }
        defer { free(rendered) }
        return String(cString: rendered)
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
    private static func nodes(of types: [cmark_node_type], in document: OpaquePointer) -> [OpaquePointer] {
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
        "<p>" + text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;") + "</p>\n"
    }
}
