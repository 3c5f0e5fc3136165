import Foundation

/// Writes JSON with keys in the order given and numbers in Swift's shortest round-trip form,
/// so the same data always gives the same bytes (the interchange dump is canonical).
/// `compact` drops the spaces after separators and the ".0" of whole numbers: what the
/// repository stores (segments, snapshot headers) is read by programs only, and on a home
/// line each byte of a sync after one edit counts.
package struct JSONWriter {
    package private(set) var output: [UInt8] = []
    private let compact: Bool

    package init(compact: Bool = false) {
        self.compact = compact
        output.reserveCapacity(1024)
    }

    fileprivate var comma: String { compact ? "," : ", " }
    fileprivate var colon: String { compact ? ":" : ": " }

    package var text: String { String(decoding: output, as: UTF8.self) }

    package mutating func raw(_ s: String) { output.append(contentsOf: s.utf8) }

    /// Runs of bytes that need no escape are copied whole: a segment's base64 attachments
    /// and long bodies are most of what sync writes.
    package mutating func string(_ s: String) {
        output.append(0x22)
        var s = s
        s.withUTF8 { bytes in
            var start = 0
            for i in 0..<bytes.count {
                let byte = bytes[i]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
                escape(byte)
                start = i + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<bytes.count]))
        }
        output.append(0x22)
    }

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case 0x22: output.append(contentsOf: [0x5C, 0x22])
        case 0x5C: output.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: output.append(contentsOf: [0x5C, 0x6E])
        case 0x0D: output.append(contentsOf: [0x5C, 0x72])
        case 0x09: output.append(contentsOf: [0x5C, 0x74])
        default:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            output.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xf)]])
        }
    }

    package mutating func number(_ d: Double) {
        // Whole numbers print as "12.0" — stable and still a JSON number; compact, as "12"
        // (exact within ±2⁵³, where every integer is a Double).
        if compact, d.rounded() == d, abs(d) < 9_007_199_254_740_992 {
            raw(String(Int64(d)))
        } else {
            raw(d.isFinite ? d.description : "null")
        }
    }

    package mutating func optionalNumber(_ d: Double?) {
        if let d { number(d) } else { raw("null") }
    }

    package mutating func bool(_ b: Bool) { raw(b ? "true" : "false") }

    /// Writes `{"k": v, ...}` calling `fields` to add members through `member`.
    package mutating func object(_ fields: (inout ObjectWriter) -> Void) {
        raw("{")
        var writer = ObjectWriter(json: self)
        output = []  // hand the buffer over without a copy
        fields(&writer)
        self = writer.json
        raw("}")
    }

    package mutating func array<T>(_ items: [T], _ item: (inout JSONWriter, T) -> Void) {
        raw("[")
        for (i, value) in items.enumerated() {
            if i > 0 { raw(comma) }
            item(&self, value)
        }
        raw("]")
    }

    package struct ObjectWriter {
        package var json: JSONWriter
        private var count = 0

        package init(json: JSONWriter) { self.json = json }

        package mutating func key(_ name: String) {
            if count > 0 { json.raw(json.comma) }
            json.string(name)
            json.raw(json.colon)
            count += 1
        }

        package mutating func string(_ name: String, _ value: String) { key(name); json.string(value) }
        package mutating func number(_ name: String, _ value: Double?) { key(name); json.optionalNumber(value) }
        package mutating func bool(_ name: String, _ value: Bool) { key(name); json.bool(value) }
    }

    /// Any parsed value written back, keys sorted (for values that have no fixed key order).
    package static func value(_ value: JSONValue) -> String {
        var w = JSONWriter()
        w.write(value)
        return w.text
    }

    /// The same, as bytes (no text made of a large document only to be sent).
    package static func data(_ value: JSONValue, compact: Bool = false) -> Data {
        var w = JSONWriter(compact: compact)
        w.write(value)
        return Data(w.output)
    }

    package mutating func write(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let b): bool(b)
        case .number(let n): number(n)
        case .string(let s): string(s)
        case .array(let items): array(items) { w, item in w.write(item) }
        case .object(let members):
            raw("{")
            for (i, key) in members.keys.sorted().enumerated() {
                if i > 0 { raw(comma) }
                string(key)
                raw(colon)
                if let member = members[key] { write(member) }
            }
            raw("}")
        }
    }


}
