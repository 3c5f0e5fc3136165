/// A Mustache template engine that passes the official spec suite (comments, delimiters,
/// interpolation, inverted sections, partials, sections; not lambdas, not inheritance).
/// Parsing follows the spec's standalone-line rules; errors name the template and line.
package struct MustacheTemplate: Sendable {
    indirect enum Node: Sendable {
        case text(String)
        case variable(name: String, escaped: Bool)
        case section(name: String, inverted: Bool, children: [Node])
        case partial(name: String, indentation: String)
    }

    package struct SyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
        package let template: String
        package let line: Int
        package let reason: String
        package var description: String { "\(template):\(line): \(reason)" }
    }

    let nodes: [Node]
    package let name: String

    /// - Throws: `SyntaxError` naming `name` and the line of an unclosed or mismatched tag.
    package init(_ source: String, name: String = "template") throws {
        self.name = name
        nodes = try Parser(source: source, name: name).parse()
    }

    /// Renders with `data`; `partials` supplies `{{> name}}` by name.
    package func render(_ data: MustacheValue, partials: [String: String] = [:]) throws -> String {
        try render(data, partials: MustachePartials(partials))
    }

    /// Renders with `data`, reusing the partials `partials` has parsed before, in at most
    /// `steps` tags (and text runs): sections over lists nested in each other multiply (twenty
    /// deep over ten tags is 10²⁰ renders), so a page stops there. The default is 25 million
    /// (4.7 s here, release), the Markdown index of three million entries.
    package func render(_ data: MustacheValue, partials: MustachePartials, steps: Int = 25_000_000) throws -> String {
        var out = ""
        var renderer = Renderer(partials: partials, stepsLeft: steps)
        do {
            var stack = [data]
            try renderer.render(nodes, stack: &stack, into: &out)
        } catch Renderer.TooMuch.steps {
            throw SyntaxError(template: name, line: 1, reason: "renders more than \(steps) tags for one page; does a section over a list sit inside another?")
        }
        return out
    }
}

/// Partial templates by name, each parsed once per indentation and reused across renders.
package final class MustachePartials {
    private let sources: [String: String]
    private let errorNames: [String: String]
    private var parsed: [String: [MustacheTemplate.Node]] = [:]

    /// - Parameter errorNames: what a syntax error in partial `name` calls it (default: `name`).
    package init(_ sources: [String: String], errorNames: [String: String] = [:]) {
        self.sources = sources
        self.errorNames = errorNames
    }

    /// The parsed partial `name` indented by `indentation`, or nil if there is none.
    func nodes(_ name: String, indentation: String) throws -> [MustacheTemplate.Node]? {
        let key = name + "\u{0}" + indentation
        if let nodes = parsed[key] { return nodes }
        guard var source = sources[name] else { return nil }
        if !indentation.isEmpty { source = Renderer.indent(source, by: indentation) }
        let nodes = try MustacheTemplate(source, name: errorNames[name] ?? name).nodes
        parsed[key] = nodes
        return nodes
    }
}

private struct Token {
    enum Kind { case text, variable, unescaped, sectionOpen, invertedOpen, close, partial, comment, delimiters }
    var kind: Kind
    var value: String
    var line: Int
    var indentation = ""
    var standalone = false
}

private struct Parser {
    /// Scalars, not Characters: "\r\n" is one Character, and line ends must be seen.
    let source: [Unicode.Scalar]
    let name: String

    init(source: String, name: String) {
        self.source = Array(source.unicodeScalars)
        self.name = name
    }

    func fail(_ line: Int, _ reason: String) -> MustacheTemplate.SyntaxError {
        MustacheTemplate.SyntaxError(template: name, line: line, reason: reason)
    }

    /// Splits into tokens, removing the whitespace and line end around standalone tags.
    func tokenize() throws -> [Token] {
        var open: [Unicode.Scalar] = ["{", "{"], close: [Unicode.Scalar] = ["}", "}"]
        var tokens: [Token?] = []
        var spaces: [Int] = []  // indices of whitespace text tokens on the current line
        var hasTag = false, nonSpace = false
        var indentation = ""
        var tagIndex = 0
        var line = 1
        var i = 0

        func stripSpace() {
            if hasTag && !nonSpace {
                for index in spaces { tokens[index] = nil }
            }
            spaces = []
            hasTag = false
            nonSpace = false
        }
        func matches(_ delimiter: [Unicode.Scalar], at position: Int) -> Bool {
            guard position + delimiter.count <= source.count else { return false }
            for (k, c) in delimiter.enumerated() where source[position + k] != c { return false }
            return true
        }

        while i < source.count {
            if matches(open, at: i) {
                let tagLine = line
                var j = i + open.count
                var kind = Token.Kind.variable
                var closeSeq = close
                switch source[j] {
                case "#": kind = .sectionOpen; j += 1
                case "^": kind = .invertedOpen; j += 1
                case "/": kind = .close; j += 1
                case ">": kind = .partial; j += 1
                case "!": kind = .comment; j += 1
                case "&": kind = .unescaped; j += 1
                case "=": kind = .delimiters; j += 1; closeSeq = ["="] + close
                case "{": kind = .unescaped; j += 1; closeSeq = ["}"] + close
                default: break
                }
                var end = j
                while end < source.count && !matches(closeSeq, at: end) {
                    if source[end] == "\n" { line += 1 }
                    end += 1
                }
                guard end < source.count else { throw fail(tagLine, "unclosed tag") }
                let content = String(String.UnicodeScalarView(source[j..<end])).trimmingWhitespace()
                i = end + closeSeq.count
                var token = Token(kind: kind, value: content, line: tagLine)
                switch kind {
                case .variable, .unescaped:
                    nonSpace = true
                case .delimiters:
                    let parts = content.split(whereSeparator: { $0 == " " || $0 == "\t" })
                    guard parts.count == 2 else { throw fail(tagLine, "bad delimiter change") }
                    open = Array(parts[0].unicodeScalars)
                    close = Array(parts[1].unicodeScalars)
                    hasTag = true
                default:
                    hasTag = true
                }
                if kind == .partial {
                    token.indentation = indentation
                    token.standalone = tagIndex == 0 && !nonSpace
                }
                tagIndex += 1
                tokens.append(token)
                continue
            }
            let c = source[i]
            if c == " " || c == "\t" || c == "\r" || c == "\n" {
                spaces.append(tokens.count)
                indentation.unicodeScalars.append(c == "\n" ? " " : c)
            } else {
                nonSpace = true
                indentation.append(" ")
            }
            tokens.append(Token(kind: .text, value: String(c), line: line))
            i += 1
            if c == "\n" {
                // Partials on this line learn whether they were standalone only now.
                let lineIsStandalone = hasTag && !nonSpace
                for index in tokens.indices.reversed() {
                    guard let t = tokens[index] else { continue }
                    if t.line < line { break }
                    if t.kind == .partial && !lineIsStandalone { tokens[index]?.standalone = false }
                }
                stripSpace()
                indentation = ""
                tagIndex = 0
                line += 1
            }
        }
        let lastIsStandalone = hasTag && !nonSpace
        if !lastIsStandalone {
            for index in tokens.indices.reversed() {
                guard let t = tokens[index] else { continue }
                if t.line < line { break }
                if t.kind == .partial { tokens[index]?.standalone = false }
            }
        }
        stripSpace()
        return tokens.compactMap { $0 }
    }

    /// Deeper than any page needs (the built-in ones nest three deep).
    static let maxSectionDepth = 32

    func parse() throws -> [MustacheTemplate.Node] {
        var stack: [(name: String, inverted: Bool, line: Int, nodes: [MustacheTemplate.Node])] = [("", false, 0, [])]
        var text = ""
        func flush() {
            if !text.isEmpty { stack[stack.count - 1].nodes.append(.text(text)); text = "" }
        }
        for token in try tokenize() {
            switch token.kind {
            case .text:
                text += token.value
            case .variable, .unescaped:
                flush()
                stack[stack.count - 1].nodes.append(.variable(name: token.value, escaped: token.kind == .variable))
            case .sectionOpen, .invertedOpen:
                flush()
                // Rendering, and freeing, a section nested 100,000 deep took the stack.
                guard stack.count <= Self.maxSectionDepth else {
                    throw fail(token.line, "sections nest more than \(Self.maxSectionDepth) deep")
                }
                stack.append((token.value, token.kind == .invertedOpen, token.line, []))
            case .close:
                flush()
                guard stack.count > 1, let top = stack.last, top.name == token.value else {
                    throw fail(token.line, "{{/\(token.value)}} closes no open section")
                }
                stack.removeLast()
                stack[stack.count - 1].nodes.append(.section(name: top.name, inverted: top.inverted, children: top.nodes))
            case .partial:
                flush()
                stack[stack.count - 1].nodes.append(.partial(name: token.value, indentation: token.standalone ? token.indentation : ""))
            case .comment, .delimiters:
                break
            }
        }
        flush()
        if stack.count > 1, let open = stack.last { throw fail(open.line, "section {{#\(open.name)}} is never closed") }
        return stack[0].nodes
    }
}

struct Renderer {
    let partials: MustachePartials
    var depth = 0
    /// How many more tags and text runs this page may render (`MustacheTemplate.render`).
    var stepsLeft: Int

    enum TooMuch: Error { case steps }

    func lookup(_ name: String, in stack: [MustacheValue]) -> MustacheValue? {
        if name == "." { return stack.last }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first else { return nil }
        var value: MustacheValue?
        for context in stack.reversed() {
            if let found = context.member(first) { value = found; break }
        }
        for part in parts.dropFirst() { value = value?.member(part) }
        return value
    }

    /// Renders `nodes` with `stack` as the contexts (innermost last; pushed and popped
    /// in place, not copied for each item of a list).
    mutating func render(_ nodes: [MustacheTemplate.Node], stack: inout [MustacheValue], into out: inout String) throws {
        for node in nodes {
            stepsLeft -= 1
            guard stepsLeft >= 0 else { throw TooMuch.steps }
            switch node {
            case .text(let text):
                out += text
            case .variable(let name, let escaped):
                let text = lookup(name, in: stack)?.text ?? ""
                out += escaped ? Self.escape(text) : text
            case .section(let name, let inverted, let children):
                let value = lookup(name, in: stack) ?? .null
                if inverted {
                    if value.isFalsey { try render(children, stack: &stack, into: &out) }
                } else if !value.isFalsey {
                    for item in value.listItems {
                        stack.append(item)
                        defer { stack.removeLast() }
                        try render(children, stack: &stack, into: &out)
                    }
                }
            case .partial(let name, let indentation):
                guard let nodes = try partials.nodes(name, indentation: indentation) else { continue }
                guard depth < 64 else { throw MustacheTemplate.SyntaxError(template: name, line: 1, reason: "partials nest too deeply") }
                depth += 1
                try render(nodes, stack: &stack, into: &out)
                depth -= 1
            }
        }
    }

    /// Prefixes every line that has content with `indentation`.
    static func indent(_ text: String, by indentation: String) -> String {
        var out = ""
        var atLineStart = true
        for c in text {
            if atLineStart && c != "\n" && c != "\r\n" { out += indentation }
            out.append(c)
            atLineStart = c == "\n" || c == "\r\n"
        }
        return out
    }

    /// `text` with `& < > "` escaped, scalar by scalar: a `<` followed by a combining accent
    /// is one `Character`, yet a `<` to an XML parser.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

private extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\n" || f == "\r" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\n" || l == "\r" { s.removeLast() }
        return String(s)
    }
}
