import CSodium
import Foundation

/// Attachments encrypted as a libsodium secretstream (XChaCha20-Poly1305) in 64 KiB chunks,
/// each chunk's associated data naming the blob id. Truncation (no final tag), reordering,
/// and swapping one blob's bytes for another's are all detected.
/// Layout: "QBL1" ‖ header (24) ‖ chunks of up to 64 KiB + 17 bytes, the last tagged FINAL.
package enum BlobCipher {
    package static let chunkSize = 64 * 1024
    static let magic = Array("QBL1".utf8)
    static var headerBytes: Int { SecretStream.headerBytes }
    static var overhead: Int { SecretStream.overhead }
    static var sealedChunk: Int { chunkSize + overhead }

    /// The encrypted size of `plaintextSize` bytes.
    package static func sealedSize(plaintextSize: Int64) -> Int64 {
        // The last chunk carries the FINAL tag; only an empty blob has an empty chunk.
        let chunks = max(1, (plaintextSize + Int64(chunkSize) - 1) / Int64(chunkSize))
        return Int64(magic.count + headerBytes) + plaintextSize + chunks * Int64(overhead)
    }

    /// The most plaintext bytes whose encrypted size is at most `sealed`; nil when not even
    /// one byte fits.
    package static func plaintextSize(fitting sealed: Int64) -> Int64? {
        let room = sealed - Int64(magic.count + headerBytes)
        let chunk = Int64(chunkSize + overhead)
        let full = room / chunk, left = room % chunk
        let size = full * Int64(chunkSize) + max(0, left - Int64(overhead))
        return size > 0 ? size : nil
    }

    static func associatedData(_ blobID: String) -> [UInt8] { Array("quire-blob:\(blobID)".utf8) }

    /// Encrypts a plaintext stream: feed it chunks of exactly `chunkSize` bytes, then the
    /// last (possibly empty, shorter) one with `final: true`.
    package final class Encryptor {
        private let stream: SecretStreamPush
        private let ad: [UInt8]
        package let header: [UInt8]

        package init(keys: RepositoryKeys, blobID: String) throws {
            try Sodium.ready()
            ad = BlobCipher.associatedData(blobID)
            guard let stream = SecretStreamPush(key: keys.blobs.bytes) else {
                throw CryptoError(.library, detail: "secretstream init failed")
            }
            self.stream = stream
            header = BlobCipher.magic + stream.header
        }

        /// Seals one chunk into `output` (which must hold `input.count + overhead` bytes); returns its length.
        package func seal(_ input: UnsafeRawBufferPointer, final: Bool, into output: UnsafeMutableRawBufferPointer) throws -> Int {
            let tag = final ? crypto_secretstream_xchacha20poly1305_tag_final() : crypto_secretstream_xchacha20poly1305_tag_message()
            guard let length = stream.push(input, tag: tag, ad: ad, into: output) else {
                throw CryptoError(.library, detail: "secretstream push failed")
            }
            return length
        }
    }

    /// Decrypts a sealed blob fed in pieces of any size; hands plaintext to `output` chunk by
    /// chunk. `finish()` fails unless the final chunk was seen and nothing follows it.
    package final class Decryptor {
        private var stream: SecretStreamPull?
        private let keys: RepositoryKeys
        private let ad: [UInt8]
        private let object: String
        private var pending: [UInt8] = []
        private var finished = false
        private let output: (UnsafeRawBufferPointer) throws -> Void
        private let plain = UnsafeMutableRawBufferPointer.allocate(byteCount: BlobCipher.chunkSize, alignment: 64)

        package init(keys: RepositoryKeys, blobID: String, object: String, output: @escaping (UnsafeRawBufferPointer) throws -> Void) throws {
            try Sodium.ready()
            self.keys = keys
            self.ad = BlobCipher.associatedData(blobID)
            self.object = object
            self.output = output
            pending.reserveCapacity(BlobCipher.sealedChunk * 2)
        }

        deinit {
            if let base = plain.baseAddress { sodium_memzero(base, plain.count) }
            plain.deallocate()
        }

        private func fail(_ detail: String) -> CryptoError { CryptoError(.unauthenticated, object: object, detail: detail) }

        package func feed(_ bytes: UnsafeRawBufferPointer) throws {
            pending.append(contentsOf: bytes)
            if stream == nil {
                let need = BlobCipher.magic.count + BlobCipher.headerBytes
                guard pending.count >= need else { return }
                guard Array(pending[0..<BlobCipher.magic.count]) == BlobCipher.magic else { throw fail("not a sealed Quire blob") }
                guard let opened = SecretStreamPull(header: Array(pending[BlobCipher.magic.count..<need]), key: keys.blobs.bytes) else {
                    throw fail("bad blob header")
                }
                stream = opened
                pending.removeFirst(need)
            }
            // Keep one whole chunk back until more arrives or the stream ends: only then do we
            // know whether a full-size chunk is the last one.
            var offset = 0
            while pending.count - offset > BlobCipher.sealedChunk {
                try open(offset..<(offset + BlobCipher.sealedChunk))
                offset += BlobCipher.sealedChunk
            }
            if offset > 0 { pending.removeFirst(offset) }
        }

        package func finish() throws {
            guard stream != nil else { throw fail("truncated: no blob header") }
            if !pending.isEmpty {
                try open(0..<pending.count)
                pending.removeAll()
            }
            guard finished else { throw fail("truncated: the final chunk is missing") }
        }

        private func open(_ range: Range<Int>) throws {
            guard !finished else { throw fail("data after the final chunk") }
            guard range.count >= BlobCipher.overhead, let stream else { throw fail("truncated chunk") }
            let opened = pending.withUnsafeBytes { stream.pull(UnsafeRawBufferPointer(rebasing: $0[range]), ad: ad, into: plain) }
            guard let (length, tag) = opened else { throw fail("does not authenticate (damaged, reordered, or another blob)") }
            if tag == crypto_secretstream_xchacha20poly1305_tag_final() { finished = true }
            try output(UnsafeRawBufferPointer(rebasing: plain[0..<length]))
        }
    }
}
