import Foundation

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
