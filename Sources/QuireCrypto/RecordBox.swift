import CSodium
import Foundation

/// Seals small objects (change-log segments, snapshots, heads) with XChaCha20-Poly1305 under
/// the records subkey. The repository id and the object's path are associated data, so an
/// object moved to another path or another repository does not open.
/// Layout: "QRC1" ‖ nonce (24) ‖ ciphertext ‖ tag (16).
package struct RecordBox: Sendable {
    let keys: RepositoryKeys
    let repositoryID: String

    package init(keys: RepositoryKeys, repositoryID: String) {
        self.keys = keys
        self.repositoryID = repositoryID
    }

    static let magic = Array("QRC1".utf8)
    /// Bytes a sealed record has beyond its plaintext.
    package static var overhead: Int { magic.count + nonceBytes + tagBytes }
    static var nonceBytes: Int { Int(crypto_aead_xchacha20poly1305_ietf_npubbytes()) }
    static var tagBytes: Int { Int(crypto_aead_xchacha20poly1305_ietf_abytes()) }

    private func associatedData(_ path: String) -> [UInt8] { Array("quire-record:\(repositoryID):\(path)".utf8) }

    package func seal(_ plaintext: Data, path: String) throws -> Data {
        try Sodium.ready()
        let nonce = Sodium.randomBytes(Self.nonceBytes)
        var out = [UInt8](repeating: 0, count: plaintext.count + Self.tagBytes)
        var length: UInt64 = 0
        let ad = associatedData(path)
        let rc = plaintext.withUnsafeBytes { m in
            crypto_aead_xchacha20poly1305_ietf_encrypt(&out, &length, m.bindMemory(to: UInt8.self).baseAddress, UInt64(m.count),
                                                       ad, UInt64(ad.count), nil, nonce, keys.records.bytes)
        }
        guard rc == 0 else { throw CryptoError(.library, object: path, detail: "cannot seal") }
        return Data(Self.magic + nonce + out)
    }

    /// - Throws: `.unauthenticated` naming `path` for anything that is not exactly what we sealed there.
    package func open(_ sealed: Data, path: String) throws -> Data {
        let bytes = [UInt8](sealed)
        let header = Self.magic.count + Self.nonceBytes
        guard bytes.count >= header + Self.tagBytes, Array(bytes[0..<Self.magic.count]) == Self.magic else {
            throw CryptoError(.unauthenticated, object: path, detail: "not a sealed Quire object (damaged or truncated)")
        }
        let nonce = Array(bytes[Self.magic.count..<header])
        let cipher = Array(bytes[header...])
        var out = [UInt8](repeating: 0, count: cipher.count - Self.tagBytes)
        var length: UInt64 = 0
        let ad = associatedData(path)
        guard crypto_aead_xchacha20poly1305_ietf_decrypt(&out, &length, nil, cipher, UInt64(cipher.count),
                                                         ad, UInt64(ad.count), nonce, keys.records.bytes) == 0 else {
            throw CryptoError(.unauthenticated, object: path, detail: "does not authenticate (damaged, or not this repository's)")
        }
        return Data(out.prefix(Int(length)))
    }
}
