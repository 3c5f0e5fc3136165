import CCmark

/// Bounds how deep a parsed entry nests. cmark-gfm parses 100,000 quotes, list items or
/// emphases inside one another, and every reader of the tree after it does not take that:
/// the book's typesetter recurses (a stack overflow), and libxml2 refuses an EPUB page nested
/// deeper than 256 elements. Containers past the limit give their content to the one that
/// holds them, so the words stay, in order, only less indented.
enum MarkdownDepth {
    /// Quotes, lists and callouts inside one another: no journal's outline goes this deep.
    static let blocks = 16
    /// Emphasis, links, strikethrough, highlights and images inside one another.
    static let inlines = 16

    static func flatten(_ document: OpaquePointer) {
        var tooDeep: [OpaquePointer] = []
        guard let iterator = cmark_iter_new(document) else { return }
        var blockDepth = 0, inlineDepth = 0
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard let node = cmark_iter_get_node(iterator) else { continue }
            let kind = nesting(node)
            guard kind != .none, event == CMARK_EVENT_ENTER || event == CMARK_EVENT_EXIT else { continue }
            let step = event == CMARK_EVENT_ENTER ? 1 : -1
            switch kind {
            case .block:
                blockDepth += step
                if event == CMARK_EVENT_ENTER && blockDepth > blocks { tooDeep.append(node) }
            case .inline:
                inlineDepth += step
                if event == CMARK_EVENT_ENTER && inlineDepth > inlines { tooDeep.append(node) }
            case .none:
                break
            }
        }
        cmark_iter_free(iterator)
        // Each goes in its own right: what it held moves up to its parent, so a node found
        // deeper is still in the tree (only items, never collected, are freed with a list).
        for node in tooDeep { unwrap(node) }
    }

    private enum Nesting { case none, block, inline }

    private static func nesting(_ node: OpaquePointer) -> Nesting {
        let type = cmark_node_get_type(node)
        switch type {
        case CMARK_NODE_BLOCK_QUOTE, CMARK_NODE_LIST, CMARK_NODE_CUSTOM_BLOCK: return .block
        default:
            // Inline types, the extensions' (strikethrough) included, carry the inline bits.
            let isInline = type.rawValue & UInt32(CMARK_NODE_TYPE_MASK) == 0xc000
            return isInline && cmark_node_first_child(node) != nil ? .inline : .none
        }
    }

    /// Puts what `node` holds where it is, and frees it: a list's items give their blocks.
    /// Where cmark refuses a move (no parent here takes less than the node it holds), the
    /// node stays, with what is left in it.
    private static func unwrap(_ node: OpaquePointer) {
        let isList = cmark_node_get_type(node) == CMARK_NODE_LIST
        while let holder = isList ? cmark_node_first_child(node) : node {
            while let child = cmark_node_first_child(holder) {
                guard cmark_node_insert_before(node, child) != 0 else { return }
            }
            guard isList else { break }
            cmark_node_unlink(holder)
            cmark_node_free(holder)
        }
        cmark_node_unlink(node)
        cmark_node_free(node)
    }
}
