import Testing
@testable import QuireStore

@Suite struct SHA256Tests {
    @Test func knownVectors() {
        #expect(SHA256.hex(of: Array("".utf8)) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func streamingInOddChunksMatchesOneShot() {
        let data = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var h = SHA256()
        var offset = 0
        for size in [1, 63, 64, 65, 1000, 7, 4096] where offset < data.count {
            let end = min(data.count, offset + size)
            h.update(data[offset..<end])
            offset = end
        }
        h.update(data[offset...])
        #expect(h.finalizeHex() == SHA256.hex(of: data))
    }

    @Test func millionAs() {
        var h = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { h.update(chunk) }
        #expect(h.finalizeHex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
