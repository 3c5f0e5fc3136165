import CSodium
import Foundation

/// Blob ids: keyed BLAKE2b-256 of the plaintext, hex. Equal attachments get equal ids
/// (deduplication) while the server cannot test a guess of their content.
package final class BlobHasher {
    private let state: UnsafeMutableRawPointer

    package init(keys: RepositoryKeys) throws {
        try Sodium.ready()
        // crypto_generichash_state needs 64-byte alignment and is not imported into Swift.
        state = UnsafeMutableRawPointer.allocate(byteCount: crypto_generichash_statebytes(), alignment: 64)
        guard crypto_generichash_init(OpaquePointer(state), keys.blobIDs.bytes, RepositoryKeys.keyBytes, 32) == 0 else {
            state.deallocate()
            throw CryptoError(.library, detail: "BLAKE2b init failed")
        }
    }

    deinit {
        sodium_memzero(state, crypto_generichash_statebytes())
        state.deallocate()
    }

    package func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        crypto_generichash_update(OpaquePointer(state), base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }

    package func finalizeHex() -> String {
        var out = [UInt8](repeating: 0, count: 32)
        crypto_generichash_final(OpaquePointer(state), &out, 32)
        return out.map { String(format: "%02x", $0) }.joined()
    }
}
