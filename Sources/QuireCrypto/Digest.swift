import CSodium
import Foundation

/// Unkeyed BLAKE2b-256, for chaining change-log segments (each names its predecessor's hash).
package enum Digest {
    package static func hex(_ data: Data) -> String {
        var out = [UInt8](repeating: 0, count: 32)
        data.withUnsafeBytes { p in
            _ = crypto_generichash(&out, 32, p.bindMemory(to: UInt8.self).baseAddress, UInt64(p.count), nil, 0)
        }
        return out.map { String(format: "%02x", $0) }.joined()
    }
}
