import Foundation

/// UUID-shaped ids. Fresh records get random v4 UUIDs; records that must come out the same on
/// every device and on every import of the same line get a v8 UUID from a SHA-256 of a key.
package enum StableID {
    static func random() -> String {
        UUID().uuidString.lowercased()
    }

    /// A UUID (version 8, RFC 9562) from the first 16 bytes of SHA-256(`key`).
    package static func derived(_ key: String) -> String {
        var hex = Array(SHA256.hex(of: key.utf8).utf8.prefix(32))
        hex[12] = UInt8(ascii: "8")                                  // version 8: custom
        let variant = Array("89ab".utf8)
        hex[16] = variant[Int((hex[16] &- 48) % 4)]                  // variant 10xx
        let s = String(decoding: hex, as: UTF8.self)
        let parts = [s.prefix(8), s.dropFirst(8).prefix(4), s.dropFirst(12).prefix(4), s.dropFirst(16).prefix(4), s.dropFirst(20)]
        return parts.joined(separator: "-")
    }

    /// True for a lower-case UUID string (8-4-4-4-12 hex).
    static func isValid(_ id: String) -> Bool {
        let b = Array(id.utf8)
        guard b.count == 36 else { return false }
        for (i, c) in b.enumerated() {
            if [8, 13, 18, 23].contains(i) {
                if c != UInt8(ascii: "-") { return false }
            } else if !((48...57).contains(c) || (97...102).contains(c)) {
                return false
            }
        }
        return true
    }
}
