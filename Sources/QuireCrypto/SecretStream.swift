import CCrypto
import CSodium
import Foundation

/// libsodium's secretstream (XChaCha20-Poly1305), sealed and opened as
/// `crypto_secretstream_xchacha20poly1305_push` and `_pull` do, with OpenSSL doing the bulk.
///
/// A chunk whose message is a whole number of 16-byte blocks (every chunk of an attachment
/// but its last) is the RFC 8439 ChaCha20-Poly1305 encryption, under the state's key and
/// nonce, of a 64-byte block holding the tag byte, then the message; the chunk keeps the
/// block's first byte only, the rest being the key stream over zeros. So OpenSSL's AEAD
/// seals and opens such a chunk whole (given, to open it, the key stream's first block,
/// 64 bytes made by libsodium): 3.6 GB/s on this project's machines against libsodium's
/// 1.3 GB/s, and a restore or a first sync of 1 GB of attachments is CPU-bound. Other
/// lengths are not: libsodium pads the MAC's input after such a message by `length & 15`
/// zeros where RFC 8439 pads by `-length & 15`, so libsodium seals and opens those chunks
/// itself, on the same state. After each chunk the state moves on as libsodium's own does
/// (its inner nonce XORed with the MAC, its counter incremented, a rekey when the tag asks
/// or the counter wraps); a chunk that does not authenticate changes nothing and gives no
/// plaintext. The tests seal and open chunks of every length and tag with these and with
/// libsodium, and require the same bytes, tags and refusals.
class SecretStream {
    fileprivate var state = crypto_secretstream_xchacha20poly1305_state()
    fileprivate let context: OpaquePointer
    static let macBytes = 16
    /// The tag byte and the MAC.
    static var overhead: Int { Int(crypto_secretstream_xchacha20poly1305_abytes()) }
    static var headerBytes: Int { Int(crypto_secretstream_xchacha20poly1305_headerbytes()) }

    fileprivate init?() {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        self.context = context
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
        withUnsafeMutableBytes(of: &state) { sodium_memzero($0.baseAddress, $0.count) }
    }

    /// Whether OpenSSL's AEAD is the chunk's construction (see above).
    fileprivate static func isWhole(_ length: Int) -> Bool { length % 16 == 0 }

    /// Runs `body` with the state's key and nonce; once it returns the MAC and tag of an
    /// authentic chunk, moves the state on past that chunk.
    fileprivate func step(_ body: (_ key: UnsafePointer<UInt8>, _ nonce: UnsafePointer<UInt8>) -> (mac: [UInt8], tag: UInt8)?) -> UInt8? {
        let keyOffset = MemoryLayout<crypto_secretstream_xchacha20poly1305_state>.offset(of: \.k) ?? 0
        let nonceOffset = MemoryLayout<crypto_secretstream_xchacha20poly1305_state>.offset(of: \.nonce) ?? 32
        var rekey = false
        let tag: UInt8? = withUnsafeMutableBytes(of: &state) { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self),
                  let (mac, tag) = body(base + keyOffset, base + nonceOffset) else { return nil }
            let nonce = base + nonceOffset, counterBytes = 4
            for i in 0..<8 { nonce[counterBytes + i] ^= mac[i] }
            sodium_increment(nonce, counterBytes)
            rekey = tag & crypto_secretstream_xchacha20poly1305_tag_rekey() != 0 || sodium_is_zero(nonce, counterBytes) == 1
            return tag
        }
        if rekey { crypto_secretstream_xchacha20poly1305_rekey(&state) }
        return tag
    }

    /// Feeds `length` bytes from `input` through the context into `output`, in the steps of
    /// at most 1 GiB that EVP's Int32 lengths allow.
    fileprivate func update(_ output: UnsafeMutablePointer<UInt8>, _ input: UnsafePointer<UInt8>, _ length: Int,
                            _ call: (OpaquePointer, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<Int32>, UnsafePointer<UInt8>, Int32) -> Int32) -> Bool {
        var done = 0, n: Int32 = 0
        while done < length {
            let step = min(length - done, 1 << 30)
            guard call(context, output + done, &n, input + done, Int32(step)) == 1 else { return false }
            done += step
        }
        return true
    }
}

/// Seals a secretstream's chunks.
final class SecretStreamPush: SecretStream {
    /// What opens the stream: sent before its first chunk.
    private(set) var header = [UInt8](repeating: 0, count: SecretStream.headerBytes)

    init?(key: UnsafePointer<UInt8>) {
        super.init()
        guard crypto_secretstream_xchacha20poly1305_init_push(&state, &header, key) == 0 else { return nil }
    }

    /// Seals `message` with `tag` into `sealed` (room for `message.count + overhead` bytes);
    /// the sealed length, or nil when a library call fails.
    func push(_ message: UnsafeRawBufferPointer, tag: UInt8, ad: [UInt8], into sealed: UnsafeMutableRawBufferPointer) -> Int? {
        let length = message.count
        guard length + Self.overhead <= sealed.count, let out = sealed.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        let input = message.baseAddress?.assumingMemoryBound(to: UInt8.self)
        guard Self.isWhole(length), let input else {
            var written: UInt64 = 0
            let rc = crypto_secretstream_xchacha20poly1305_push(&state, out, &written, input, UInt64(length), ad, UInt64(ad.count), tag)
            return rc == 0 ? Int(written) : nil
        }
        let sealedTag = step { key, nonce in
            var block = [UInt8](repeating: 0, count: 64), first = [UInt8](repeating: 0, count: 64)
            block[0] = tag
            defer { sodium_memzero(&first, first.count) }
            var n: Int32 = 0
            var mac = [UInt8](repeating: 0, count: Self.macBytes)
            guard EVP_EncryptInit_ex(context, EVP_chacha20_poly1305(), nil, key, nonce) == 1,
                  ad.isEmpty || EVP_EncryptUpdate(context, nil, &n, ad, Int32(ad.count)) == 1,
                  EVP_EncryptUpdate(context, &first, &n, block, 64) == 1,
                  update(out + 1, input, length, EVP_EncryptUpdate),
                  EVP_EncryptFinal_ex(context, &block, &n) == 1,
                  EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(Self.macBytes), &mac) == 1 else { return nil }
            out[0] = first[0]
            for i in 0..<Self.macBytes { out[1 + length + i] = mac[i] }
            return (mac, tag)
        }
        return sealedTag == nil ? nil : length + Self.overhead
    }
}

/// Opens a secretstream's chunks.
final class SecretStreamPull: SecretStream {
    /// nil when `header` is not one (libsodium's `init_pull` refuses it).
    init?(header: [UInt8], key: UnsafePointer<UInt8>) {
        super.init()
        guard header.count == Self.headerBytes, crypto_secretstream_xchacha20poly1305_init_pull(&state, header, key) == 0 else { return nil }
    }

    /// Authenticates and decrypts one sealed chunk into `plain` (room for `sealed.count -
    /// overhead` bytes); its length and tag, or nil when it does not authenticate.
    func pull(_ sealed: UnsafeRawBufferPointer, ad: [UInt8], into plain: UnsafeMutableRawBufferPointer) -> (length: Int, tag: UInt8)? {
        let length = sealed.count - Self.overhead
        guard length >= 0, length <= plain.count, let input = sealed.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let out = plain.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        guard Self.isWhole(length) else {
            var opened: UInt64 = 0
            var tag: UInt8 = 0
            let rc = crypto_secretstream_xchacha20poly1305_pull(&state, out, &opened, &tag, input, UInt64(sealed.count), ad, UInt64(ad.count))
            return rc == 0 ? (Int(opened), tag) : nil
        }
        let tag = step { key, nonce in
            // The block before the message as sealed: the tag's byte as sent, then the key stream.
            var block = [UInt8](repeating: 0, count: 64), first = [UInt8](repeating: 0, count: 64)
            crypto_stream_chacha20_ietf_xor_ic(&block, block, 64, nonce, 1, key)
            block[0] = input[0]
            defer {
                sodium_memzero(&block, block.count)
                sodium_memzero(&first, first.count)
            }
            var n: Int32 = 0
            var mac = (0..<Self.macBytes).map { input[1 + length + $0] }
            guard EVP_DecryptInit_ex(context, EVP_chacha20_poly1305(), nil, key, nonce) == 1,
                  ad.isEmpty || EVP_DecryptUpdate(context, nil, &n, ad, Int32(ad.count)) == 1,
                  EVP_DecryptUpdate(context, &first, &n, block, 64) == 1,
                  update(out, input + 1, length, EVP_DecryptUpdate) else { return nil }
            let tag = first[0]
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(Self.macBytes), &mac) == 1,
                  EVP_DecryptFinal_ex(context, &first, &n) == 1 else { return nil }
            return (mac, tag)
        }
        guard let tag else {
            sodium_memzero(out, length)  // decrypted before the MAC was checked: never handed on
            return nil
        }
        return (length, tag)
    }
}
