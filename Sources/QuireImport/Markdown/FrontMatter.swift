import QuireSupport

/// The YAML front matter of a Markdown note, in the subset notes use: `key: value`,
/// nested maps and lists by indentation, `- item` lists (of scalars or of maps), flow lists
/// `[a, "b"]`, and plain, "double-quoted" (with `\n`, `\"`, `\\`, `\t`, `\xHH`, `\uHHHH`) and
/// 'single-quoted' scalars. Anything else is an error naming the line, never a guess.
indirect enum YAMLNode: Equatable {
    case scalar(String, quoted: Bool)
    case list([YAMLNode])
    case map([(String, YAMLNode)])

    static func == (a: YAMLNode, b: YAMLNode) -> Bool {
        switch (a, b) {
        case let (.scalar(x, p), .scalar(y, q)): return x == y && p == q
        case let (.list(x), .list(y)): return x == y
        case let (.map(x), .map(y)): return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    subscript(key: String) -> YAMLNode? {
        guard case .map(let pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    /// A scalar's text; `null`, `~` and an empty plain value are nil.
    var text: String? {
        guard case .scalar(let s, let quoted) = self else { return nil }
        if !quoted && (s.isEmpty || s == "null" || s == "~") { return nil }
        return s
    }

    var items: [YAMLNode]? {
        if case .list(let items) = self { return items }
        return nil
    }
}

struct FrontMatterError: Error {
    let line: Int
    let detail: String
}

enum FrontMatter {
    /// Splits `text` into its front matter (the lines between a first line `---` and the next
    /// `---`) and the rest. No front matter: nil and the whole text.
    static func split(_ text: String) -> (yaml: String?, rest: Substring) {
        guard text.hasPrefix("---\n") || text.hasPrefix("---\r\n") else { return (nil, Substring(text)) }
        let afterOpen = text[text.index(after: text.firstIndex(of: "\n") ?? text.startIndex)...]
        var lineStart = afterOpen.startIndex
        while lineStart < afterOpen.endIndex {
            let lineEnd = afterOpen[lineStart...].firstIndex(of: "\n") ?? afterOpen.endIndex
            let line = afterOpen[lineStart..<lineEnd]
            if line == "---" || line == "---\r" || line == "..." {
                let rest = lineEnd < afterOpen.endIndex ? afterOpen[afterOpen.index(after: lineEnd)...] : afterOpen[lineEnd...]
                return (String(afterOpen[afterOpen.startIndex..<lineStart]), rest)
            }
            lineStart = lineEnd < afterOpen.endIndex ? afterOpen.index(after: lineEnd) : lineEnd
        }
        return (nil, Substring(text))
    }

    /// - Throws: `FrontMatterError` naming the line (counted from the note's first line).
    static func parse(_ yaml: String) throws -> YAMLNode {
        var lines: [(number: Int, indent: Int, text: Substring)] = []
        for (index, raw) in yaml.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            let trimmed = line.drop { $0 == " " }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if trimmed.hasPrefix("\t") { throw FrontMatterError(line: index + 2, detail: "a tab indents this line; YAML indents with spaces") }
            lines.append((index + 2, line.count - trimmed.count, trimmed))
        }
        var parser = Parser(lines: lines)
        guard !lines.isEmpty else { return .map([]) }
        let node = try parser.block(indent: lines[0].indent)
        if parser.position < lines.count {
            throw FrontMatterError(line: lines[parser.position].number, detail: "is indented where nothing can continue")
        }
        return node
    }

    private struct Parser {
        let lines: [(number: Int, indent: Int, text: Substring)]
        var position = 0

        /// A map or a list whose lines start at `indent`.
        mutating func block(indent: Int) throws -> YAMLNode {
            if lines[position].text.hasPrefix("- ") || lines[position].text == "-" { return try list(indent: indent) }
            return try map(indent: indent, first: nil)
        }

        mutating func list(indent: Int) throws -> YAMLNode {
            var items: [YAMLNode] = []
            while position < lines.count, lines[position].indent == indent,
                  lines[position].text.hasPrefix("- ") || lines[position].text == "-" {
                let line = lines[position]
                let rest = line.text.dropFirst(1).drop { $0 == " " }
                if rest.isEmpty {
                    position += 1
                    if position < lines.count, lines[position].indent > indent {
                        items.append(try block(indent: lines[position].indent))
                    } else {
                        items.append(.scalar("", quoted: false))
                    }
                } else if let colon = Self.keyColon(rest) {
                    // `- key: value` opens a map whose later keys line up with `key`.
                    let childIndent = indent + (line.text.count - rest.count)
                    items.append(try map(indent: childIndent, first: (String(rest[..<colon]), rest[rest.index(after: colon)...], line.number)))
                } else {
                    items.append(try Self.scalar(rest, line: line.number))
                    position += 1
                }
            }
            return .list(items)
        }

        /// `first`: a `key: value` already read from a `- ` line.
        mutating func map(indent: Int, first: (String, Substring, Int)?) throws -> YAMLNode {
            var pairs: [(String, YAMLNode)] = []
            var pending = first
            while true {
                let key: String
                let value: Substring
                let number: Int
                if let p = pending {
                    (key, value, number) = p
                    pending = nil
                } else {
                    guard position < lines.count, lines[position].indent == indent else { break }
                    let line = lines[position]
                    guard let colon = Self.keyColon(line.text) else {
                        throw FrontMatterError(line: line.number, detail: "is not `key: value`")
                    }
                    (key, value, number) = (String(line.text[..<colon]), line.text[line.text.index(after: colon)...], line.number)
                }
                position += 1
                let trimmed = value.drop { $0 == " " }
                let cleanKey = try Self.unquotedKey(key, line: number)
                if trimmed.isEmpty {
                    if position < lines.count, lines[position].indent > indent
                        || (lines[position].indent == indent && lines[position].text.hasPrefix("- ")) {
                        pairs.append((cleanKey, try block(indent: lines[position].indent)))
                    } else {
                        pairs.append((cleanKey, .scalar("", quoted: false)))
                    }
                } else {
                    pairs.append((cleanKey, try Self.scalar(trimmed, line: number)))
                }
            }
            return .map(pairs)
        }

        /// Where `key:` ends: the first `:` followed by a space or the line's end, outside quotes.
        static func keyColon(_ text: Substring) -> Substring.Index? {
            var quote: Character?
            var i = text.startIndex
            while i < text.endIndex {
                let c = text[i]
                if let q = quote {
                    if c == q { quote = nil }
                } else if c == "\"" || c == "'" {
                    if i == text.startIndex { quote = c }
                } else if c == ":" {
                    let next = text.index(after: i)
                    if next == text.endIndex || text[next] == " " { return i }
                } else if c == "[" || c == "{" {
                    if i == text.startIndex { return nil }
                }
                i = text.index(after: i)
            }
            return nil
        }

        static func unquotedKey(_ key: String, line: Int) throws -> String {
            let trimmed = Substring(key.trimmingCharacters(in: .whitespaces))
            if trimmed.first == "\"" || trimmed.first == "'" { return try scalar(trimmed, line: line).text ?? "" }
            return String(trimmed)
        }

        /// A scalar or a flow list on one line.
        static func scalar(_ text: Substring, line: Int) throws -> YAMLNode {
            var reader = ScalarReader(chars: Array(text.unicodeScalars), line: line)
            let node = try reader.value(inFlow: false)
            reader.skipSpaces()
            if reader.position < reader.chars.count, reader.chars[reader.position] != "#" {
                throw FrontMatterError(line: line, detail: "has text after its value")
            }
            return node
        }
    }

    /// Reads scalar by scalar: a quote, a comma or an escape's hex digit followed by a
    /// combining mark or a zero-width joiner is one `Character` with it, yet itself to YAML.
    private struct ScalarReader {
        let chars: [Unicode.Scalar]
        let line: Int
        var position = 0

        mutating func skipSpaces() { while position < chars.count, chars[position] == " " { position += 1 } }

        mutating func value(inFlow: Bool) throws -> YAMLNode {
            skipSpaces()
            guard position < chars.count else { return .scalar("", quoted: false) }
            switch chars[position] {
            case "\"": return .scalar(try doubleQuoted(), quoted: true)
            case "'": return .scalar(try singleQuoted(), quoted: true)
            case "[": return try flowList()
            case "{": throw FrontMatterError(line: line, detail: "uses a {flow map}, which notes do not need; write it as indented keys")
            default:
                var out = ""
                while position < chars.count {
                    let c = chars[position]
                    if inFlow && (c == "," || c == "]") { break }
                    if c == "#" && out.unicodeScalars.last == " " { break }
                    out.unicodeScalars.append(c)
                    position += 1
                }
                return .scalar(out.trimmingCharacters(in: .whitespaces), quoted: false)
            }
        }

        mutating func flowList() throws -> YAMLNode {
            position += 1
            var items: [YAMLNode] = []
            while true {
                skipSpaces()
                guard position < chars.count else { throw FrontMatterError(line: line, detail: "has a [list] that is not closed") }
                if chars[position] == "]" { position += 1; return .list(items) }
                items.append(try value(inFlow: true))
                skipSpaces()
                if position < chars.count, chars[position] == "," { position += 1 }
            }
        }

        mutating func singleQuoted() throws -> String {
            position += 1
            var out = ""
            while position < chars.count {
                let c = chars[position]
                position += 1
                if c == "'" {
                    if position < chars.count, chars[position] == "'" { out.append("'"); position += 1; continue }
                    return out
                }
                out.unicodeScalars.append(c)
            }
            throw FrontMatterError(line: line, detail: "has a 'quoted' value that is not closed")
        }

        mutating func doubleQuoted() throws -> String {
            position += 1
            var out = ""
            while position < chars.count {
                let c = chars[position]
                position += 1
                if c == "\"" { return out }
                guard c == "\\" else { out.unicodeScalars.append(c); continue }
                guard position < chars.count else { break }
                let e = chars[position]
                position += 1
                switch e {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case "0": out.append("\u{0}")
                case "\\", "\"", "/", " ": out.unicodeScalars.append(e)
                case "x", "u", "U":
                    let n = e == "x" ? 2 : e == "u" ? 4 : 8
                    guard position + n <= chars.count, let v = UInt32(String(String.UnicodeScalarView(chars[position..<position + n])), radix: 16),
                          let scalar = Unicode.Scalar(v) else {
                        throw FrontMatterError(line: line, detail: "has an escape \\\(e) that is not a character")
                    }
                    out.unicodeScalars.append(scalar)
                    position += n
                default:
                    throw FrontMatterError(line: line, detail: "has a backslash before \(TextSnippet.quoted(String(e))), which is not an escape")
                }
            }
            throw FrontMatterError(line: line, detail: "has a \"quoted\" value that is not closed")
        }
    }
}
