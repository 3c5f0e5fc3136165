import CSodium
import Foundation

/// A key file (`keys/<id>` on the remote): the master key wrapped by a key derived from a
/// passphrase with Argon2id, with the KDF parameters stored beside it, so changing a
/// passphrase rewrites this small file and never the data. Bound to its repository id.
package struct KeyFile: Codable, Equatable, Sendable {
    package var format: Int
    package var kdf: String
    package var opslimit: UInt64
    package var memlimit: UInt64
    package var salt: String
    package var nonce: String
    package var key: String

    static let format1 = 1
    static let kdfName = "argon2id13"

    private static func associatedData(_ repositoryID: String) -> [UInt8] { Array("quire-keyfile:\(repositoryID)".utf8) }

    /// Wraps `keys.master` under `passphrase`.
    package static func wrap(_ keys: RepositoryKeys, passphrase: SecureBytes, repositoryID: String, cost: KeyCost = .moderate) throws -> KeyFile {
        try Sodium.ready()
        let salt = Sodium.randomBytes(Int(crypto_pwhash_saltbytes()))
        let nonce = Sodium.randomBytes(Int(crypto_aead_xchacha20poly1305_ietf_npubbytes()))
        let wrapping = try derive(passphrase, salt: salt, cost: cost)
        var sealed = [UInt8](repeating: 0, count: RepositoryKeys.keyBytes + Int(crypto_aead_xchacha20poly1305_ietf_abytes()))
        var sealedLength: UInt64 = 0
        let ad = associatedData(repositoryID)
        guard crypto_aead_xchacha20poly1305_ietf_encrypt(&sealed, &sealedLength, keys.master.bytes, UInt64(keys.master.count),
                                                         ad, UInt64(ad.count), nil, nonce, wrapping.bytes) == 0 else {
            throw CryptoError(.library, detail: "cannot wrap the key")
        }
        return KeyFile(format: format1, kdf: kdfName, opslimit: cost.opslimit, memlimit: cost.memlimit,
                       salt: Data(salt).base64EncodedString(), nonce: Data(nonce).base64EncodedString(),
                       key: Data(sealed).base64EncodedString())
    }

    /// Unwraps the master key with `passphrase`.
    /// - Throws: `.wrongPassphrase` when it does not open, `.badKeyFile` when malformed.
    package func unwrap(passphrase: SecureBytes, repositoryID: String, name: String) throws -> RepositoryKeys {
        guard format == Self.format1, kdf == Self.kdfName else {
            throw CryptoError(.badKeyFile, object: name, detail: "unknown key file format")
        }
        let floor = KeyCost.minimum
        guard opslimit >= floor.opslimit, memlimit >= floor.memlimit,
              opslimit <= KeyCost.ceiling.opslimit, memlimit <= KeyCost.ceiling.memlimit else {
            throw CryptoError(.badKeyFile, object: name, detail: "key derivation parameters out of range")
        }
        guard let salt = Data(base64Encoded: salt), salt.count == Int(crypto_pwhash_saltbytes()),
              let nonce = Data(base64Encoded: nonce), nonce.count == Int(crypto_aead_xchacha20poly1305_ietf_npubbytes()),
              let sealed = Data(base64Encoded: key),
              sealed.count == RepositoryKeys.keyBytes + Int(crypto_aead_xchacha20poly1305_ietf_abytes()) else {
            throw CryptoError(.badKeyFile, object: name, detail: "key file is malformed")
        }
        let wrapping = try Self.derive(passphrase, salt: Array(salt), cost: KeyCost(opslimit: opslimit, memlimit: memlimit))
        let master = try SecureBytes(count: RepositoryKeys.keyBytes)
        var length: UInt64 = 0
        let ad = Self.associatedData(repositoryID)
        let cipher = [UInt8](sealed), nonceBytes = [UInt8](nonce)
        let rc = crypto_aead_xchacha20poly1305_ietf_decrypt(master.mutableBytes, &length, nil, cipher, UInt64(cipher.count),
                                                            ad, UInt64(ad.count), nonceBytes, wrapping.bytes)
        guard rc == 0 else { throw CryptoError(.wrongPassphrase, object: name, detail: "the passphrase does not open this key") }
        return try RepositoryKeys(master: master)
    }

    private static func derive(_ passphrase: SecureBytes, salt: [UInt8], cost: KeyCost) throws -> SecureBytes {
        let key = try SecureBytes(count: RepositoryKeys.keyBytes)
        let rc = passphrase.pointer.withMemoryRebound(to: CChar.self, capacity: passphrase.count) { p in
            crypto_pwhash(key.mutableBytes, UInt64(key.count), p, UInt64(passphrase.count), salt,
                          cost.opslimit, Int(cost.memlimit), crypto_pwhash_alg_argon2id13())
        }
        guard rc == 0 else { throw CryptoError(.library, detail: "Argon2id failed (out of memory?)") }
        return key
    }

    package func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    package static func decode(_ data: Data, name: String) throws -> KeyFile {
        do {
            return try JSONDecoder().decode(KeyFile.self, from: data)
        } catch {
            throw CryptoError(.badKeyFile, object: name, detail: "key file is not valid JSON")
        }
    }
}

/// How hard a passphrase is to guess at: the Argon2id cost of its key file. The default is
/// libsodium's MODERATE (about 1 s and 256 MiB here); tests store cheaper ones in the file
/// itself, so opening needs no special case.
public struct KeyCost: Sendable {
    package var opslimit: UInt64
    package var memlimit: UInt64
    package init(opslimit: UInt64, memlimit: UInt64) {
        self.opslimit = opslimit
        self.memlimit = memlimit
    }
    public static var moderate: KeyCost {
        KeyCost(opslimit: UInt64(crypto_pwhash_opslimit_moderate()), memlimit: UInt64(crypto_pwhash_memlimit_moderate()))
    }
    package static var minimum: KeyCost {
        KeyCost(opslimit: UInt64(crypto_pwhash_opslimit_min()), memlimit: UInt64(crypto_pwhash_memlimit_min()))
    }
    public static var interactive: KeyCost {
        KeyCost(opslimit: UInt64(crypto_pwhash_opslimit_interactive()), memlimit: UInt64(crypto_pwhash_memlimit_interactive()))
    }
    /// The most a key file may ask for: libsodium's SENSITIVE level (4 passes over 1 GiB,
    /// a few seconds here). A key file comes from the server; a hostile one must not make
    /// an unlock take minutes or allocate more memory than a laptop has to spare.
    package static let ceiling = KeyCost(opslimit: 4, memlimit: 1 << 30)
}
