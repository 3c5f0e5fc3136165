import CSodium
import Foundation

/// Key material in memory libsodium guards (guard pages, mlock) and wipes when freed.
public final class SecureBytes: @unchecked Sendable {  // the pointer is written once, at init; libsodium guards it
    package let count: Int
    let pointer: UnsafeMutableRawPointer

    /// Fresh zeroed secure memory.
    /// - Throws: `.library` when libsodium cannot allocate it.
    package init(count: Int) throws {
        try Sodium.ready()
        guard let p = sodium_malloc(count) else { throw CryptoError(.library, detail: "cannot allocate secure memory") }
        sodium_memzero(p, count)
        self.count = count
        self.pointer = p
    }

    /// Secure memory holding a copy of `bytes`.
    public convenience init<Bytes: Collection>(copying bytes: Bytes) throws where Bytes.Element == UInt8 {
        try self.init(count: bytes.count)
        var p = pointer.assumingMemoryBound(to: UInt8.self)
        for b in bytes { p.pointee = b; p += 1 }
    }

    /// Random bytes.
    package static func random(count: Int) throws -> SecureBytes {
        let bytes = try SecureBytes(count: count)
        randombytes_buf(bytes.pointer, count)
        return bytes
    }

    deinit { sodium_free(pointer) }

    /// The bytes, for the duration of `body` only.
    package func withUnsafeBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    var bytes: UnsafePointer<UInt8> { UnsafePointer(pointer.assumingMemoryBound(to: UInt8.self)) }
    var mutableBytes: UnsafeMutablePointer<UInt8> { pointer.assumingMemoryBound(to: UInt8.self) }
}

package enum Sodium {
    private static let initialised: Bool = sodium_init() >= 0

    static func ready() throws {
        guard initialised else { throw CryptoError(.library, detail: "libsodium failed to initialise") }
    }

    package static func randomBytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        randombytes_buf(&out, count)
        return out
    }

    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) }
    }
}
