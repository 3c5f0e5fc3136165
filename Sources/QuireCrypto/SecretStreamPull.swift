import CCrypto
import CSodium
import Foundation

/// Opens the chunks of a libsodium secretstream (XChaCha20-Poly1305), as
/// `crypto_secretstream_xchacha20poly1305_pull` does, with OpenSSL doing the bulk.
///
/// A chunk whose message is a whole number of 16-byte blocks (every chunk of an attachment
/// but its last) is the RFC 8439 ChaCha20-Poly1305 encryption, under the state's key and
/// nonce, of a 64-byte block holding the tag byte, then the message; the chunk keeps the
/// block's first byte only, the rest being the key stream over zeros. So the key stream's
/// first block is made here (libsodium, 64 bytes), and OpenSSL's AEAD authenticates and
/// decrypts the whole: 3.6 GB/s on this project's machines against libsodium's 1.3 GB/s for
/// the same stream, and a restore of 1 GB of attachments is CPU-bound. (Other lengths are
/// not: libsodium pads the MAC's input after such a message by `length & 15` zeros where
/// RFC 8439 pads by `-length & 15`, so libsodium opens those chunks itself.) The state moves
/// on as libsodium's own does (its inner nonce XORed with the MAC, its counter incremented,
/// a rekey when the tag asks or the counter wraps); a chunk that does not authenticate
/// changes nothing and gives no plaintext. The tests open libsodium's streams with it and
/// with libsodium, chunk by chunk, and require the same bytes, tags and failures.
final class SecretStreamPull {
    private var state = crypto_secretstream_xchacha20poly1305_state()
    private let context: OpaquePointer
    static let macBytes = 16
    /// The tag byte and the MAC.
    static var overhead: Int { Int(crypto_secretstream_xchacha20poly1305_abytes()) }

    /// nil when `header` is not one (libsodium's `init_pull` refuses it).
    init?(header: [UInt8], key: UnsafePointer<UInt8>) {
        guard header.count == Int(crypto_secretstream_xchacha20poly1305_headerbytes()),
              crypto_secretstream_xchacha20poly1305_init_pull(&state, header, key) == 0,
              let context = EVP_CIPHER_CTX_new() else { return nil }
        self.context = context
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
        withUnsafeMutableBytes(of: &state) { sodium_memzero($0.baseAddress, $0.count) }
    }

    /// Authenticates and decrypts one sealed chunk into `plain` (room for `sealed.count -
    /// overhead` bytes); its length and tag, or nil when it does not authenticate.
    func pull(_ sealed: UnsafeRawBufferPointer, ad: [UInt8], into plain: UnsafeMutableRawBufferPointer) -> (length: Int, tag: UInt8)? {
        let length = sealed.count - Self.overhead
        guard length >= 0, length <= plain.count, let input = sealed.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        guard length % 16 == 0 else {
            var opened: UInt64 = 0
            var tag: UInt8 = 0
            let rc = crypto_secretstream_xchacha20poly1305_pull(&state, plain.baseAddress?.assumingMemoryBound(to: UInt8.self), &opened, &tag,
                                                                input, UInt64(sealed.count), ad, UInt64(ad.count))
            return rc == 0 ? (Int(opened), tag) : nil
        }
        let keyOffset = MemoryLayout<crypto_secretstream_xchacha20poly1305_state>.offset(of: \.k) ?? 0
        let nonceOffset = MemoryLayout<crypto_secretstream_xchacha20poly1305_state>.offset(of: \.nonce) ?? 32
        var mac = [UInt8](repeating: 0, count: Self.macBytes)
        var tag: UInt8 = 0
        var rekey = false
        let opened: Bool = withUnsafeMutableBytes(of: &state) { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
            let key = base + keyOffset, nonce = base + nonceOffset
            // The block before the message: the tag's byte as sent, then the key stream.
            var block = [UInt8](repeating: 0, count: 64)
            crypto_stream_chacha20_ietf_xor_ic(&block, block, 64, nonce, 1, key)
            block[0] = input[0]
            defer { sodium_memzero(&block, block.count) }
            var first = [UInt8](repeating: 0, count: 64)
            defer { sodium_memzero(&first, first.count) }
            var n: Int32 = 0
            guard EVP_DecryptInit_ex(context, EVP_chacha20_poly1305(), nil, key, nonce) == 1,
                  ad.isEmpty || EVP_DecryptUpdate(context, nil, &n, ad, Int32(ad.count)) == 1,
                  EVP_DecryptUpdate(context, &first, &n, block, 64) == 1 else { return false }
            tag = first[0]
            var done = 0
            let out = plain.baseAddress?.assumingMemoryBound(to: UInt8.self)
            while done < length {  // EVP takes an Int32 length
                let step = min(length - done, 1 << 30)
                guard let out, EVP_DecryptUpdate(context, out + done, &n, input + 1 + done, Int32(step)) == 1 else { return false }
                done += step
            }
            for i in 0..<Self.macBytes { mac[i] = input[1 + length + i] }
            var finalLength: Int32 = 0
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(Self.macBytes), &mac) == 1,
                  EVP_DecryptFinal_ex(context, &first, &finalLength) == 1 else { return false }
            // Authentic: the state moves on as libsodium's does.
            let counterBytes = 4
            for i in 0..<8 { nonce[counterBytes + i] ^= mac[i] }
            sodium_increment(nonce, counterBytes)
            rekey = tag & crypto_secretstream_xchacha20poly1305_tag_rekey() != 0 || sodium_is_zero(nonce, counterBytes) == 1
            return true
        }
        if rekey { crypto_secretstream_xchacha20poly1305_rekey(&state) }
        guard opened else {
            if let base = plain.baseAddress { sodium_memzero(base, min(plain.count, max(length, 0))) }
            return nil
        }
        return (length, tag)
    }
}
