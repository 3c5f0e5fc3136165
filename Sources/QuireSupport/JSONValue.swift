import Foundation

/// A parsed JSON value. A small strict parser of our own (RFC 8259): exact errors with a
/// position, duplicate keys refused, numbers kept as Double, no trap on any input.
package enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    package struct ParseError: Error, Equatable {
        package let offset: Int
        package let reason: String
    }

    /// Parses one JSON document from `bytes`; anything after it but whitespace is an error.
    /// `sharingStrings`: equal strings the document repeats are one `String` (see `Parser.Shared`),
    /// for a large document that names the same ids over and over.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>, sharingStrings: Bool = false) throws(ParseError) -> JSONValue {
        var parser = Parser(bytes: bytes)
        if sharingStrings { parser.shared = Parser.Shared() }
        return try parser.document()
    }

    /// Parses an object one of whose members, `rowsOf`, is an array of arrays (a change log's
    /// rows), handing each inner array to `row` as it is read rather than keeping it: that
    /// member reads as an empty array in the result. Nothing else differs from `parse`, the
    /// checks included. A row `row` refuses (false) stops the parse with `refusal`.
    /// At 100,000 entries a restore decoded 900,000 rows, each an array made, kept until its
    /// segment was read, and taken apart again.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>, sharingStrings: Bool = false, rowsOf key: String,
                              refusal: String, row: ([JSONValue]) -> Bool) throws(ParseError) -> JSONValue {
        let result = withoutActuallyEscaping(row) { row in
            Result { () throws(ParseError) -> JSONValue in
                var parser = Parser(bytes: bytes)
                if sharingStrings { parser.shared = Parser.Shared() }
                parser.rows = (key, refusal, row)  // for this parse alone
                return try parser.document()
            }
        }
        return try result.get()
    }

    package static func parse(_ text: String) throws(ParseError) -> JSONValue {
        let bytes = Array(text.utf8)
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(ParseError) -> JSONValue in try parse(buffer) }
        }
        return try result.get()
    }

    package var string: String? { if case .string(let s) = self { return s } else { return nil } }
    package var number: Double? { if case .number(let n) = self { return n } else { return nil } }
    /// The number when it is a whole number an `Int` holds; nil for 2.5, 1e300 or NaN, so a
    /// count or position from outside never traps a conversion.
    package var integer: Int? { number.flatMap { Int(exactly: $0) } }
    package var object: [String: JSONValue]? { if case .object(let o) = self { return o } else { return nil } }
    package var array: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    package var isNull: Bool { self == .null }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        var shared: Shared?
        /// The top-level member whose rows go to a closure (`parse(_:rowsOf:refusal:row:)`).
        var rows: (key: String, refusal: String, row: ([JSONValue]) -> Bool)?
        static let maxDepth = 64

        /// The strings of a document met so far, by a hash of their bytes: a string met again
        /// is the one made before, not a new allocation. A change-log segment names the same
        /// record, device and clock in every one of thousands of rows; at 100,000 entries a
        /// restore's decoding spent most of its time allocating and freeing those copies.
        /// A slot holds the last string whose hash fell there (a cache: a collision costs only
        /// an allocation), and its bytes are compared whole before it is used.
        final class Shared {
            private var slots = [String?](repeating: nil, count: 4096)

            func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
                var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
                let slot = Int(truncatingIfNeeded: (hash ^ hash >> 32) & 4095)
                if let known = slots[slot], known.utf8.count == bytes.count,
                   known.utf8.withContiguousStorageIfAvailable({ kept in
                       guard let a = kept.baseAddress, let b = bytes.baseAddress else { return bytes.isEmpty }
                       return memcmp(a, b, bytes.count) == 0
                   }) == true {
                    return known
                }
                guard let made = Parser.validString(bytes) else { return nil }
                slots[slot] = made
                return made
            }
        }

        /// `bytes` as text when they are valid UTF-8, else nil. Decoding repairs what is not
        /// valid, so the text is the bytes exactly when nothing needed repair: a stdlib path
        /// made for bytes, where `String(validating:as:)` went through unspecialised generic
        /// code (a tenth of decoding a change log's rows under `perf`).
        static func validString(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
            var text = String(decoding: bytes, as: UTF8.self)
            let same = text.withUTF8 { made in
                guard made.count == bytes.count else { return false }
                guard let a = made.baseAddress, let b = bytes.baseAddress else { return true }  // both empty
                return memcmp(a, b, bytes.count) == 0
            }
            return same ? text : nil
        }

        /// The one value `bytes` holds; anything after it but whitespace is an error.
        mutating func document() throws(ParseError) -> JSONValue {
            skipWhitespace()
            let value = try value(depth: 0)
            skipWhitespace()
            guard index == bytes.count else { throw fail("unexpected text after the value") }
            return value
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        func fail(_ reason: String) -> ParseError { ParseError(offset: index, reason: reason) }

        mutating func value(depth: Int) throws(ParseError) -> JSONValue {
            guard depth < Self.maxDepth else { throw fail("nested too deeply") }
            guard index < bytes.count else { throw fail("unexpected end of line") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw fail("unexpected character")
            }
        }

        mutating func literal(_ word: StaticString) throws(ParseError) {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw fail("unexpected end of line") }
            for k in 0..<count where bytes[index + k] != word.utf8Start[k] { throw fail("unexpected character") }
            index += count
        }

        mutating func object(depth: Int) throws(ParseError) -> JSONValue {
            index += 1
            var result: [String: JSONValue] = [:]
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "}") { index += 1; return .object(result) }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key in quotes") }
                let key = try string()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':' after key \(TextSnippet.quoted(key, limit: 30))") }
                index += 1
                skipWhitespace()
                let item: JSONValue
                if depth == 0, let rows, key == rows.key, index < bytes.count, bytes[index] == UInt8(ascii: "[") {
                    try streamRows(to: rows.row, refusal: rows.refusal)
                    item = .array([])
                } else {
                    item = try value(depth: depth + 1)
                }
                guard result.updateValue(item, forKey: key) == nil else { throw fail("duplicate key \(TextSnippet.quoted(key, limit: 30))") }
                skipWhitespace()
                guard index < bytes.count else { throw fail("unexpected end of line inside an object") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(result) }
                throw fail("expected ',' or '}'")
            }
        }

        mutating func array(depth: Int) throws(ParseError) -> JSONValue {
            index += 1
            var result: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "]") { index += 1; return .array(result) }
            while true {
                skipWhitespace()
                result.append(try value(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw fail("unexpected end of line inside an array") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(result) }
                throw fail("expected ',' or ']'")
            }
        }

        /// An array of arrays at depth 1, each inner one handed over in one buffer, reused.
        mutating func streamRows(to row: ([JSONValue]) -> Bool, refusal: String) throws(ParseError) {
            index += 1
            var buffer: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "]") { index += 1; return }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { throw fail(refusal) }
                index += 1
                buffer.removeAll(keepingCapacity: true)
                skipWhitespace()
                if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
                    index += 1
                } else {
                    while true {
                        skipWhitespace()
                        buffer.append(try value(depth: 3))
                        skipWhitespace()
                        guard index < bytes.count else { throw fail("unexpected end of line inside an array") }
                        if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                        if bytes[index] == UInt8(ascii: "]") { index += 1; break }
                        throw fail("expected ',' or ']'")
                    }
                }
                guard row(buffer) else { throw fail(refusal) }
                skipWhitespace()
                guard index < bytes.count else { throw fail("unexpected end of line inside an array") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return }
                throw fail("expected ',' or ']'")
            }
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw fail("short \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[index]
                let d: UInt32
                switch c {
                case 48...57: d = UInt32(c - 48)
                case 97...102: d = UInt32(c - 87)
                case 65...70: d = UInt32(c - 55)
                default: throw fail("bad \\u escape")
                }
                v = v << 4 | d
                index += 1
            }
            return v
        }

        mutating func string() throws(ParseError) -> String {
            index += 1
            let start = index
            // Fast path: no escapes.
            while index < bytes.count {
                let c = bytes[index]
                if c == UInt8(ascii: "\"") {
                    let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    index += 1
                    // Strings of up to 15 bytes are held inline and cost no allocation.
                    let s = slice.count > 15 && slice.count <= 64 ? shared.map { $0.string(slice) } ?? Self.validString(slice)
                                                                  : Self.validString(slice)
                    guard let s else { throw fail("text is not valid UTF-8") }
                    return s
                }
                if c == UInt8(ascii: "\\") { break }
                if c < 0x20 { throw fail("control character inside a string") }
                index += 1
            }
            var out = Array(bytes[start..<index])
            while index < bytes.count {
                let c = bytes[index]
                if c == UInt8(ascii: "\"") {
                    index += 1
                    guard let s = String(validating: out, as: UTF8.self) else { throw fail("text is not valid UTF-8") }
                    return s
                }
                if c < 0x20 { throw fail("control character inside a string") }
                if c != UInt8(ascii: "\\") { out.append(c); index += 1; continue }
                index += 1
                guard index < bytes.count else { break }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw fail("unpaired surrogate in \\u escape")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate in \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw fail("unpaired surrogate in \\u escape")
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw fail("bad \\u escape") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default:
                    throw fail("unknown escape")
                }
            }
            throw fail("unterminated string")
        }

        mutating func number() throws(ParseError) -> Double {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            func digits(_ p: inout Parser) -> Int {
                let s = p.index
                while p.index < p.bytes.count, (48...57).contains(p.bytes[p.index]) { p.index += 1 }
                return p.index - s
            }
            let intStart = index
            guard digits(&self) > 0 else { throw fail("bad number") }
            if bytes[intStart] == UInt8(ascii: "0") && index - intStart > 1 { throw fail("bad number (leading zero)") }
            if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits(&self) > 0 else { throw fail("bad number") }
            }
            if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
                index += 1
                if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) { index += 1 }
                guard digits(&self) > 0 else { throw fail("bad number") }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let value = Double(text), value.isFinite else { throw fail("number out of range") }
            return value
        }
    }
}
