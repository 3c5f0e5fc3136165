/// SHA-256 (FIPS 180-4), streaming. Names blob files by their content; the Store layer has
/// no crypto library of its own (libsodium belongs to the Crypto layer), and this is small.
package struct SHA256 {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    private var buffer = [UInt8](repeating: 0, count: 64)
    private var buffered = 0
    private var length: UInt64 = 0

    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    package init() {}

    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var p = bytes.baseAddress else { return }
        var remaining = bytes.count
        length &+= UInt64(remaining)
        if buffered > 0 {
            let take = min(64 - buffered, remaining)
            let offset = buffered
            buffer.withUnsafeMutableBytes { dst in
                dst.baseAddress.map { ($0 + offset).copyMemory(from: p, byteCount: take) }
            }
            buffered += take
            p += take
            remaining -= take
            if buffered == 64 {
                let block = buffer
                block.withUnsafeBytes { raw in raw.baseAddress.map { compress($0) } }
                buffered = 0
            }
        }
        while remaining >= 64 {
            compress(p)
            p += 64
            remaining -= 64
        }
        if remaining > 0 {
            let count = remaining
            buffer.withUnsafeMutableBytes { dst in
                dst.baseAddress.map { $0.copyMemory(from: p, byteCount: count) }
            }
            buffered = remaining
        }
    }

    package mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let array = Array(bytes)
        array.withUnsafeBytes { update($0) }
    }

    /// The digest as 64 lower-case hex characters.
    package mutating func finalizeHex() -> String {
        let bitLength = length &* 8
        var tail: [UInt8] = [0x80]
        let padding = (buffered + 1) % 64 <= 56 ? 56 - (buffered + 1) % 64 : 120 - (buffered + 1) % 64
        tail += [UInt8](repeating: 0, count: padding)
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        let savedLength = length
        tail.withUnsafeBytes { update($0) }
        length = savedLength
        let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for w in words {
            for shift in stride(from: 28, through: 0, by: -4) { out.append(hex[Int((w >> UInt32(shift)) & 0xf)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    package static func hex<Bytes: Sequence>(of bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var h = SHA256()
        h.update(bytes)
        return h.finalizeHex()
    }

    @inline(__always) private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

    /// The round constants, in memory that is never freed (read on every block).
    nonisolated(unsafe) private static let table: UnsafeMutablePointer<UInt32> = {
        let p = UnsafeMutablePointer<UInt32>.allocate(capacity: 64)
        p.initialize(from: k, count: 64)
        return p
    }()

    private mutating func compress(_ block: UnsafeRawPointer) {
        let s = state
        let k = Self.table
        // All round state lives inside the closure (nothing captured is mutated), so it stays
        // in registers.
        let r = withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w -> (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) in
            for i in 0..<16 {
                w[i] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))
            }
            for i in 16..<64 {
                let x = w[i - 15], y = w[i - 2]
                let s0 = Self.rotr(x, 7) ^ Self.rotr(x, 18) ^ (x >> 3)
                let s1 = Self.rotr(y, 17) ^ Self.rotr(y, 19) ^ (y >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = s
            for i in 0..<64 {
                let s1 = Self.rotr(e, 6) ^ Self.rotr(e, 11) ^ Self.rotr(e, 25)
                let ch = (e & f) ^ (~e & g)
                let t1 = h &+ s1 &+ ch &+ k[i] &+ w[i]
                let s0 = Self.rotr(a, 2) ^ Self.rotr(a, 13) ^ Self.rotr(a, 22)
                let maj = (a & b) ^ (a & c) ^ (b & c)
                h = g; g = f; f = e; e = d &+ t1
                d = c; c = b; b = a; a = t1 &+ s0 &+ maj
            }
            return (a, b, c, d, e, f, g, h)
        }
        state = (s.0 &+ r.0, s.1 &+ r.1, s.2 &+ r.2, s.3 &+ r.3, s.4 &+ r.4, s.5 &+ r.5, s.6 &+ r.6, s.7 &+ r.7)
    }
}
