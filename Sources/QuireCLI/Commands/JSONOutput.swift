import Foundation
import QuireKit

/// The CLI's own JSON documents and lines, written with the support layer's `JSONWriter`
/// (the writer of the store's interchange), so both escape and print numbers alike.
struct JSONOutput {
    indirect enum Value {
        case string(String), number(Double), int(Int), bool(Bool), strings([String]), null, object([(String, Value)])
        case objects([[(String, Value)]])
    }
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
        text += Self.render(.object(fields))
    }

    static func render(_ value: Value) -> String {
        var writer = JSONWriter()
        switch value {
        case .string(let s): writer.string(s)
        case .number(let d): writer.number(d)
        case .int(let i): writer.raw(String(i))
        case .bool(let b): writer.bool(b)
        case .strings(let items): writer.array(items) { $0.string($1) }
        case .null: return "null"
        case .object(let fields): return "{" + fields.map { key, value in quote(key) + ": " + render(value) }.joined(separator: ", ") + "}"
        case .objects(let items): return "[" + items.map { render(.object($0)) }.joined(separator: ", ") + "]"
        }
        return writer.text
    }

    /// `s` as a JSON string, escaped as the store's interchange writes it.
    static func quote(_ s: String) -> String {
        var writer = JSONWriter()
        writer.string(s)
        return writer.text
    }
}
