import CXML2
import Foundation

/// Well-formed XHTML through libxml2: entry bodies are re-parsed with libxml2's HTML parser
/// and written back as XHTML that is safe inside a book page, and every finished page is
/// parsed again as strict XML before it is written. The only file that talks to libxml2.
package enum XHTMLPage {
    /// Elements kept as they are (after their attributes are filtered); any other element
    /// is replaced by its content.
    static let keptElements: Set<String> = [
        "p", "blockquote", "ul", "ol", "li", "pre", "code", "em", "strong", "del", "s", "a", "hr", "br",
        "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "section", "sup", "sub", "div",
        "span", "b", "i", "kbd", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "mark",
    ]
    static let voidElements: Set<String> = ["br", "hr"]
    static let linkSchemes = ["http:", "https:", "mailto:"]

    /// Makes the HTML of an entry body (cmark-gfm's output) into an XHTML fragment for a
    /// page: ids are prefixed with `idPrefix` so entries sharing a page cannot collide, and
    /// links to them follow (links to ids that do not exist become text); headings move
    /// down `headingShift` levels (h1 of an entry sits below the page's own headings);
    /// images become links (a book cannot fetch them) or their alt text; task-list boxes
    /// become ☑/☐; `align` becomes a style; relative links, which lead nowhere inside a
    /// book, become text; comments, scripts and unknown attributes are dropped.
    /// `inBook` lists targets the book itself provides (an attachment's image, its place in the
    /// list of attachments), kept as they are.
    package static func fragment(_ html: String, idPrefix: String, headingShift: Int = 0, inBook: Set<String> = []) -> String {
        let wrapped = "<html><body>" + html + "</body></html>"
        let options = Int32(HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NONET.rawValue)
        let size = Int32(clamping: wrapped.utf8.count)
        let document = wrapped.withCString { htmlReadMemory($0, size, nil, "UTF-8", options) }
        guard let document else { return "<p>" + XMLText.escape(html) + "</p>" }
        defer { xmlFreeDoc(document) }
        guard let body = findBody(xmlDocGetRootElement(document)) else { return "" }
        var ids = Set<String>()
        collectIDs(body.pointee.children, into: &ids)
        var writer = FragmentWriter(idPrefix: idPrefix, headingShift: headingShift, ids: ids, inBook: inBook)
        writer.write(children: body.pointee.children)
        return writer.out
    }

    /// Where a page is not well-formed XML: line and libxml2's message.
    package struct Problem: Error, Equatable, Sendable {
        package let line: Int
        package let message: String
    }

    /// Parses `document` as strict XML (no DTD, no network, no entities beyond XML's five).
    /// - Returns: nil when well-formed, else the first problem.
    static func wellFormednessProblem(_ document: String) -> Problem? {
        guard let context = xmlNewParserCtxt() else { return Problem(line: 0, message: "out of memory") }
        defer { xmlFreeParserCtxt(context) }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let size = Int32(clamping: document.utf8.count)
        let parsed = document.withCString { xmlCtxtReadMemory(context, $0, size, nil, "UTF-8", options) }
        if let parsed, context.pointee.wellFormed != 0 {
            xmlFreeDoc(parsed)
            return nil
        }
        if let parsed { xmlFreeDoc(parsed) }
        guard let error = xmlCtxtGetLastError(context) else { return Problem(line: 0, message: "not well-formed XML") }
        let message = error.pointee.message.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "not well-formed XML"
        return Problem(line: Int(error.pointee.line), message: message)
    }

    private static func findBody(_ root: xmlNodePtr?) -> xmlNodePtr? {
        var node = root?.pointee.children
        while let current = node {
            if current.pointee.type == XML_ELEMENT_NODE, name(of: current) == "body" { return current }
            node = current.pointee.next
        }
        return nil
    }

    static func name(of node: xmlNodePtr) -> String {
        node.pointee.name.map { String(cString: $0) }?.lowercased() ?? ""
    }

    static func attribute(_ node: xmlNodePtr, _ name: String) -> String? {
        guard let value = xmlGetProp(node, name) else { return nil }
        defer { quire_xml_free(value) }
        return String(cString: value)
    }

    private static func collectIDs(_ first: xmlNodePtr?, into ids: inout Set<String>) {
        var node = first
        while let current = node {
            if current.pointee.type == XML_ELEMENT_NODE {
                if let id = attribute(current, "id") { ids.insert(id) }
                collectIDs(current.pointee.children, into: &ids)
            }
            node = current.pointee.next
        }
    }

    /// Writes a parsed tree back as XHTML, applying the rules of `fragment`.
    private struct FragmentWriter {
        let idPrefix: String
        let headingShift: Int
        let ids: Set<String>
        let inBook: Set<String>
        var out = ""

        mutating func write(children first: xmlNodePtr?) {
            var node = first
            while let current = node {
                write(current)
                node = current.pointee.next
            }
        }

        mutating func write(_ node: xmlNodePtr) {
            switch node.pointee.type {
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = node.pointee.content { out += XMLText.escape(String(cString: content)) }
            case XML_ELEMENT_NODE:
                element(node)
            default:
                break // comments, processing instructions, DTD nodes
            }
        }

        mutating func element(_ node: xmlNodePtr) {
            var name = XHTMLPage.name(of: node)
            switch name {
            case "script", "style", "head", "title", "iframe", "object", "embed", "noscript", "template":
                return
            case "img":
                image(node)
                return
            case "input":
                if XHTMLPage.attribute(node, "type")?.lowercased() == "checkbox" {
                    out += XHTMLPage.attribute(node, "checked") != nil ? "☑" : "☐"
                }
                return
            case "a":
                guard let href = link(node) else { write(children: node.pointee.children); return }
                out += "<a href=\"" + XMLText.escape(href) + "\"" + commonAttributes(node) + ">"
                write(children: node.pointee.children)
                out += "</a>"
                return
            default:
                break
            }
            guard XHTMLPage.keptElements.contains(name) else {
                write(children: node.pointee.children)
                return
            }
            if name.count == 2, name.hasPrefix("h"), let level = Int(name.dropFirst()) {
                name = "h\(min(6, level + headingShift))"
            }
            var attributes = commonAttributes(node)
            if name == "ol", let start = XHTMLPage.attribute(node, "start"), let n = Int(start) { attributes += " start=\"\(n)\"" }
            if name == "th" || name == "td", let align = XHTMLPage.attribute(node, "align")?.lowercased(),
               ["left", "right", "center"].contains(align) {
                attributes += " style=\"text-align: \(align)\""
            }
            if name == "code" || name == "pre", let language = XHTMLPage.attribute(node, "lang") {
                attributes += " class=\"language-" + XMLText.escape(language) + "\""
            }
            let opening = out.endIndex
            out += "<" + name + attributes
            if XHTMLPage.voidElements.contains(name) {
                out += "/>"
                return
            }
            out += ">"
            let start = out.endIndex
            write(children: node.pointee.children)
            // A paragraph left with nothing in it (its only content was an attachment shown
            // elsewhere, or not at all) goes, so a page has no empty paragraph.
            if name == "p", out[start...].allSatisfy(\.isWhitespace) {
                out.removeSubrange(opening...)
                return
            }
            out += "</" + name + ">"
        }

        /// `id` (prefixed) and `class`: the attributes kept on every element.
        func commonAttributes(_ node: xmlNodePtr) -> String {
            var text = ""
            if let id = XHTMLPage.attribute(node, "id") { text += " id=\"" + XMLText.escape(idPrefix + id) + "\"" }
            if let kind = XHTMLPage.attribute(node, "class") { text += " class=\"" + XMLText.escape(kind) + "\"" }
            return text
        }

        /// The link target kept for an `a`, or nil to show its text only.
        func link(_ node: xmlNodePtr) -> String? {
            guard let href = XHTMLPage.attribute(node, "href")?.trimmingCharacters(in: .whitespacesAndNewlines), !href.isEmpty else { return nil }
            if inBook.contains(href) { return href }
            if href.hasPrefix("#") {
                let target = String(href.dropFirst())
                return ids.contains(target) ? "#" + idPrefix + target : nil
            }
            let lower = href.lowercased()
            guard XHTMLPage.linkSchemes.contains(where: { lower.hasPrefix($0) }), !href.contains(" ") else { return nil }
            return href
        }

        /// An image in a body points outside the book: a link to it, or its alt text.
        mutating func image(_ node: xmlNodePtr) {
            let alt = XHTMLPage.attribute(node, "alt") ?? ""
            let src = XHTMLPage.attribute(node, "src")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            let lower = src.lowercased()
            if inBook.contains(src) {
                out += "<img src=\"" + XMLText.escape(src) + "\" alt=\"" + XMLText.escape(alt) + "\" />"
            } else if (lower.hasPrefix("http:") || lower.hasPrefix("https:")) && !src.contains(" ") {
                out += "<a href=\"" + XMLText.escape(src) + "\">" + XMLText.escape(alt.isEmpty ? src : alt) + "</a>"
            } else {
                out += XMLText.escape(alt)
            }
        }
    }
}
