import QuireStore

/// The data a template renders: JSON-shaped.
package enum MustacheValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case list([MustacheValue])
    case object([String: MustacheValue])

    package init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let n): self = .number(n)
        case .string(let s): self = .string(s)
        case .array(let items): self = .list(items.map(MustacheValue.init))
        case .object(let members): self = .object(members.mapValues(MustacheValue.init))
        }
    }

    /// Sections skip false, null and empty lists.
    var isFalsey: Bool {
        switch self {
        case .null, .bool(false): return true
        case .list(let items): return items.isEmpty
        default: return false
        }
    }

    /// The text an interpolation shows.
    var text: String {
        switch self {
        case .null: return ""
        case .bool(let b): return b ? "true" : "false"
        case .number(let n):
            if n.rounded() == n, abs(n) < 1e15 { return String(Int64(n)) }
            return String(n)
        case .string(let s): return s
        case .list, .object: return ""
        }
    }

    /// What a section over this value renders its children with: each item of a list,
    /// else the value itself once.
    var listItems: [MustacheValue] {
        if case .list(let items) = self { return items }
        return [self]
    }

    func member(_ name: String) -> MustacheValue? {
        if case .object(let members) = self { return members[name] }
        return nil
    }
}
