import CCmark

/// Obsidian's marks that CommonMark does not know, made in cmark's tree after parsing so that
/// code and escapes are already told apart: `==highlight==` becomes a custom inline that
/// renders `<mark>…</mark>`, and a quote opening `[!kind] Title` (a callout) a custom block
/// `<div class="callout callout-kind">` holding a `callout-title` block and the rest. The
/// PDF's tree reads the same nodes back (`MarkdownRenderer.block`, `.inline`).
enum ObsidianTree {
    /// Pairs `==` in the text of every node: the first with the next among the same parent's
    /// text, opening before a non-space and closing after one. An unpaired one stays text.
    static func markHighlights(_ document: OpaquePointer) {
        let texts = MarkdownRenderer.nodes(of: [CMARK_NODE_TEXT], in: document).filter { MarkdownRenderer.holds("==", in: MarkdownRenderer.literal($0)) }
        guard !texts.isEmpty else { return }
        var parents: [OpaquePointer] = []
        for text in texts {
            guard let parent = cmark_node_parent(text), !parents.contains(parent) else { continue }
            parents.append(parent)
        }
        for parent in parents { highlight(in: parent) }
    }

    private static func highlight(in parent: OpaquePointer) {
        var start = cmark_node_first_child(parent)
        var from = 0
        while let first = start {
            guard let open = marker(in: first, from: from, opening: true) else {
                start = cmark_node_next(first)
                from = 0
                continue
            }
            var close: (node: OpaquePointer, at: Int)?
            if let at = marker(in: first, from: open + 2, opening: false) {
                close = (first, at)
            } else {
                var next = cmark_node_next(first)
                while let node = next, close == nil {
                    if let at = marker(in: node, from: 0, opening: false) { close = (node, at) }
                    next = cmark_node_next(node)
                }
            }
            guard let close else { return }
            guard let mark = cmark_node_new(CMARK_NODE_CUSTOM_INLINE) else { return }
            cmark_node_set_on_enter(mark, "<mark>")
            cmark_node_set_on_exit(mark, "</mark>")
            let bytes = Array(MarkdownRenderer.literal(first).utf8)
            setText(first, bytes[..<open])
            cmark_node_insert_after(first, mark)
            if close.node == first {
                appendText(bytes[(open + 2)..<close.at], to: mark)
                let after = newText(bytes[(close.at + 2)...])
                if let after { cmark_node_insert_after(mark, after) }
                start = after
                from = 0
                if after == nil { return }
                continue
            }
            appendText(bytes[(open + 2)...], to: mark)
            while let node = cmark_node_next(mark), node != close.node { cmark_node_append_child(mark, node) }
            let closing = Array(MarkdownRenderer.literal(close.node).utf8)
            appendText(closing[..<close.at], to: mark)
            setText(close.node, closing[(close.at + 2)...])
            start = close.node
            from = 0
        }
    }

    /// Where `==` stands in `node`'s text from byte `from`: an opening one before a non-space,
    /// a closing one after a non-space (`a == b` is no highlight). Nil for other nodes.
    private static func marker(in node: OpaquePointer, from: Int, opening: Bool) -> Int? {
        guard cmark_node_get_type(node) == CMARK_NODE_TEXT else { return nil }
        let bytes = Array(MarkdownRenderer.literal(node).utf8)
        var i = from
        while i + 1 < bytes.count {
            if bytes[i] == UInt8(ascii: "="), bytes[i + 1] == UInt8(ascii: "=") {
                let isSpace = { (b: UInt8) in b == 0x20 || b == 0x09 || b == 0x0A }
                let fits = opening ? (i + 2 < bytes.count && !isSpace(bytes[i + 2])) : (i > 0 && !isSpace(bytes[i - 1]))
                let wholeRun = (i + 2 >= bytes.count || bytes[i + 2] != UInt8(ascii: "=")) && (i == 0 || bytes[i - 1] != UInt8(ascii: "="))
                // At a node's edge the neighbour decides: an opening may end a node before
                // emphasis (`==**bold**==`), a closing may start one after it.
                let edge = opening ? i + 2 == bytes.count : i == 0
                if wholeRun && (fits || edge) { return i }
            }
            i += 1
        }
        return nil
    }

    private static func setText(_ node: OpaquePointer, _ bytes: ArraySlice<UInt8>) {
        cmark_node_set_literal(node, String(decoding: bytes, as: UTF8.self))
    }

    private static func newText(_ bytes: ArraySlice<UInt8>) -> OpaquePointer? {
        guard !bytes.isEmpty, let node = cmark_node_new(CMARK_NODE_TEXT) else { return nil }
        setText(node, bytes)
        return node
    }

    private static func appendText(_ bytes: ArraySlice<UInt8>, to parent: OpaquePointer) {
        if let node = newText(bytes) { cmark_node_append_child(parent, node) }
    }

    // MARK: Callouts

    /// Each quote whose first line is `[!kind]`, `[!kind]+` or `[!kind]- Title` becomes a callout.
    static func makeCallouts(_ document: OpaquePointer) {
        for quote in MarkdownRenderer.nodes(of: [CMARK_NODE_BLOCK_QUOTE], in: document) {
            guard let paragraph = cmark_node_first_child(quote), cmark_node_get_type(paragraph) == CMARK_NODE_PARAGRAPH,
                  let first = cmark_node_first_child(paragraph), cmark_node_get_type(first) == CMARK_NODE_TEXT,
                  let (kind, rest) = opening(MarkdownRenderer.literal(first)) else { continue }
            guard let callout = cmark_node_new(CMARK_NODE_CUSTOM_BLOCK), let titleBlock = cmark_node_new(CMARK_NODE_CUSTOM_BLOCK),
                  let title = cmark_node_new(CMARK_NODE_PARAGRAPH) else { continue }
            cmark_node_set_on_enter(callout, "<div class=\"callout callout-\(kind)\">")
            cmark_node_set_on_exit(callout, "</div>")
            cmark_node_set_on_enter(titleBlock, "<div class=\"callout-title\">")
            cmark_node_set_on_exit(titleBlock, "</div>")
            cmark_node_append_child(titleBlock, title)
            cmark_node_append_child(callout, titleBlock)
            // The title: the rest of the first line, up to its line break.
            cmark_node_set_literal(first, String(rest.drop { $0 == " " }))
            while let node = cmark_node_first_child(paragraph) {
                let type = cmark_node_get_type(node)
                if type == CMARK_NODE_SOFTBREAK || type == CMARK_NODE_LINEBREAK {
                    cmark_node_unlink(node)
                    cmark_node_free(node)
                    break
                }
                cmark_node_append_child(title, node)
            }
            if MarkdownRenderer.children(of: title).allSatisfy({ cmark_node_get_type($0) == CMARK_NODE_TEXT && MarkdownRenderer.literal($0).isEmpty }),
               let name = cmark_node_new(CMARK_NODE_TEXT) {
                while let node = cmark_node_first_child(title) { cmark_node_unlink(node); cmark_node_free(node) }
                cmark_node_set_literal(name, kind.prefix(1).uppercased() + kind.dropFirst())
                cmark_node_append_child(title, name)
            }
            if cmark_node_first_child(paragraph) == nil {
                cmark_node_unlink(paragraph)
                cmark_node_free(paragraph)
            }
            while let node = cmark_node_first_child(quote) { cmark_node_append_child(callout, node) }
            cmark_node_replace(quote, callout)
            cmark_node_free(quote)
        }
    }

    /// `[!note]- Rest` → ("note", " Rest"); nil when the text does not open a callout.
    static func opening(_ text: String) -> (String, Substring)? {
        guard text.hasPrefix("[!"), let close = text.firstIndex(of: "]") else { return nil }
        let kind = text[text.index(text.startIndex, offsetBy: 2)..<close]
        guard !kind.isEmpty, kind.count <= 30, kind.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else { return nil }
        var rest = text[text.index(after: close)...]
        if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
        guard rest.isEmpty || rest.first == " " else { return nil }
        return (kind.lowercased(), rest)
    }

    /// A callout block's kind and title paragraph, read back from the nodes `makeCallouts` made.
    static func callout(_ node: OpaquePointer) -> (kind: String, title: OpaquePointer)? {
        guard let enter = cmark_node_get_on_enter(node).map({ String(cString: $0) }),
              let range = enter.range(of: "class=\"callout callout-"),
              let titleBlock = cmark_node_first_child(node), let title = cmark_node_first_child(titleBlock) else { return nil }
        let kind = enter[range.upperBound...].prefix { $0 != "\"" }
        return (String(kind), title)
    }
}
