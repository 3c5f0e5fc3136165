import Foundation
import QuireStore

struct SearchCommand: Command {
    static let name = "search"
    static let abstract = "Find entries by words in titles, bodies and transcripts."
    static let help = """
        Usage: quire search QUERY [--limit N] [--json]

        Every word must match. Case and accents are ignored; Russian words match in other
        grammatical forms (Москва finds Москве); Japanese and Chinese words are found inside
        sentences without spaces; `word*` matches words starting with "word".
          --limit N   at most N results, best first (default 50)
          --json      a JSON array of {"id", "created", "title", "snippet"}
        """
    static let spec = Arguments.Spec(options: ["limit"], flags: ["json"])

    static func run(_ arguments: Arguments, context: Context) throws {
        let query = arguments.positionals.joined(separator: " ")
        guard !query.isEmpty else { throw CLIError.usage("missing QUERY") }
        var limit = 50
        if let text = arguments.value("limit") {
            guard let n = Int(text), n > 0 else { throw CLIError.usage("--limit must be a positive number") }
            limit = n
        }
        let store = try context.openStore()
        let hits = try store.search(query, limit: limit)
        if arguments.flag("json") {
            var json = JSONOutput()
            json.array(hits) { j, hit in
                j.object([("id", .string(hit.id)), ("created", .string(hit.created.text)), ("title", .string(hit.title)),
                          ("snippet", .string(hit.snippet(open: "", close: "")))])
            }
            context.print(json.text)
            return
        }
        let (open, close) = context.stdoutIsTerminal ? ("\u{1B}[1m", "\u{1B}[0m") : ("", "")
        for hit in hits {
            context.print(Format.short(hit.id) + "  " + hit.created.localMinute + "  " + hit.title)
            let snippet = hit.snippet(open: open, close: close).split(whereSeparator: \.isNewline).joined(separator: " ")
            context.print("    " + snippet)
        }
    }
}

struct ConflictsCommand: Command {
    static let name = "conflicts"
    static let abstract = "List concurrent edits that lost a merge and were kept as revisions."
    static let help = """
        Usage: quire conflicts [--json]

        When two machines change the same text field (title, body, transcript) before syncing,
        the later write wins and the other is kept here, never dropped.
          --json   a JSON array of {"record", "id", "field", "value", "device"}
        """
    static let spec = Arguments.Spec(flags: ["json"])

    static func run(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        let store = try context.openStore()
        let revisions = try store.conflicts()
        if arguments.flag("json") {
            var json = JSONOutput()
            json.array(revisions) { j, r in
                j.object([("record", .string(r.record)), ("id", .string(r.recordID)), ("field", .string(r.field)),
                          ("value", .string(r.value)), ("device", .string(r.device))])
            }
            context.print(json.text)
            return
        }
        if revisions.isEmpty { context.print("No conflicts."); return }
        for r in revisions {
            context.print("\(r.record) \(Format.short(r.recordID)) \(r.field) (from device \(Format.short(r.device))):")
            context.print("    " + r.value.split(whereSeparator: \.isNewline).joined(separator: " "))
        }
    }
}

/// Minimal JSON output for the CLI's own documents (entries use the store's interchange writer).
struct JSONOutput {
    enum Value { case string(String), number(Double), int(Int), bool(Bool), strings([String]) }
    private(set) var text = ""

    mutating func array<T>(_ items: [T], _ item: (inout JSONOutput, T) -> Void) {
        text += "["
        for (i, value) in items.enumerated() {
            text += i == 0 ? "\n  " : ",\n  "
            item(&self, value)
        }
        text += items.isEmpty ? "]" : "\n]"
    }

    mutating func object(_ fields: [(String, Value)]) {
        text += "{" + fields.map { key, value in Self.quote(key) + ": " + Self.render(value) }.joined(separator: ", ") + "}"
    }

    static func render(_ value: Value) -> String {
        switch value {
        case .string(let s): return quote(s)
        case .number(let d): return d.isFinite ? d.description : "null"
        case .int(let i): return String(i)
        case .bool(let b): return b ? "true" : "false"
        case .strings(let items): return "[" + items.map(quote).joined(separator: ", ") + "]"
        }
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}
