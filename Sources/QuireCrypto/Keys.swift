import CSodium
import Foundation

/// A repository's keys: the random 256-bit master key and the subkeys derived from it
/// (BLAKE2b-based `crypto_kdf`), one per purpose, so no key is used for two things.
package final class RepositoryKeys: @unchecked Sendable {  // immutable after init: SecureBytes read only
    package let master: SecureBytes
    let records: SecureBytes
    let blobs: SecureBytes
    let blobIDs: SecureBytes

    static let keyBytes = 32

    /// A new random master key.
    package static func generate() throws -> RepositoryKeys {
        try RepositoryKeys(master: SecureBytes.random(count: keyBytes))
    }

    package init(master: SecureBytes) throws {
        guard master.count == Self.keyBytes else { throw CryptoError(.badKeyFile, detail: "master key has the wrong length") }
        self.master = master
        records = try Self.derive(master, id: 1, context: "quirerec")
        blobs = try Self.derive(master, id: 2, context: "quireblb")
        blobIDs = try Self.derive(master, id: 3, context: "quirebid")
    }

    private static func derive(_ master: SecureBytes, id: UInt64, context: String) throws -> SecureBytes {
        let key = try SecureBytes(count: keyBytes)
        let ctx = Array(context.utf8.prefix(8)).map { CChar(bitPattern: $0) }
        guard crypto_kdf_derive_from_key(key.mutableBytes, keyBytes, id, ctx, master.bytes) == 0 else {
            throw CryptoError(.library, detail: "key derivation failed")
        }
        return key
    }
}
