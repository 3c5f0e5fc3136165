import Foundation
import QuireStore
import QuireCrypto
import QuireRemote

extension Repository {
    /// `blobs/<first two hex>/<id>`.
    package static func blobPath(_ id: String) -> String { "blobs/" + id.prefix(2) + "/" + id }

    /// The repository's blob id of a local file: keyed BLAKE2b of its bytes, read in 1 MiB chunks.
    package func blobID(ofFileAt path: String) throws -> String {
        let source = try FileSource(path: path)
        let hasher = try BlobHasher(keys: keys)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = try source.read(into: buffer)
            if n == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
        return hasher.finalizeHex()
    }

    /// Encrypts and uploads a local file, streaming (constant memory), create-only: a blob
    /// already on the server is left as it is. Returns the blob id.
    @discardableResult
    package func uploadBlob(fileAt path: String) throws -> String {
        let id = try blobID(ofFileAt: path)
        let source = try EncryptingSource(path: path, keys: keys, blobID: id)
        source.chunkSealed = uploadChunk
        do {
            try backend.publish(Self.blobPath(id), from: source)
        } catch let error as RemoteError where error.kind == .exists {
            // Same id, same plaintext: someone uploaded it before.
        }
        return id
    }

    /// True when blob `id` is on the server (one ranged GET of its first byte: a name only
    /// ever appears complete, since blobs are published by a move).
    package func hasBlob(_ id: String) throws -> Bool { try hasObject(Self.blobPath(id)) }

    /// True when `object` (a blob object or a pack) is on the server: one ranged GET of its
    /// first byte. Both only ever appear under their names complete or not at all to anyone
    /// who looks them up (see `PackUploader` for packs).
    func hasObject(_ object: String) throws -> Bool {
        do {
            try backend.get(object, range: 0..<1, into: DataSink(limit: 1 << 16))
            return true
        } catch let error as RemoteError where error.kind == .notFound {
            return false
        }
    }

    /// Downloads, authenticates and decrypts blob `id` into `destination` (written to a
    /// temporary name and renamed only once every chunk authenticated), in constant memory.
    /// Every chunk's associated data names `id` and the stream must end with its final tag,
    /// so a damaged, truncated, reordered or swapped blob fails; recomputing the keyed hash
    /// of the plaintext would only catch a key holder that named a blob wrongly, and cost a
    /// tenth of a restore: `verifyBlob` (`quire verify --read-data`) does that.
    /// - Throws: `CryptoError.unauthenticated` naming the blob for anything damaged or swapped.
    /// With `sha256`, the plaintext must be those bytes (hashed as it streams).
    package func downloadBlob(_ id: String, to destination: String, sha256: String? = nil) throws {
        let object = Self.blobPath(id)
        let temp = destination + ".part-" + UUID().uuidString.lowercased()
        defer { unlink(temp) }
        let sink = try DecryptingSink(path: temp, keys: keys, blobID: id, object: object)
        try backend.get(object, range: nil, into: sink)
        try sink.finish(expecting: sha256, blob: id)
        guard rename(temp, destination) == 0 else {
            throw StoreError.file(destination, "cannot write")
        }
    }
}

extension Repository {
    /// Downloads and decrypts blob `id` without keeping it, checking every chunk and that the
    /// plaintext hashes to `id`.
    package func verifyBlob(_ id: String) throws {
        let object = Self.blobPath(id)
        let hasher = try BlobHasher(keys: keys)
        let decryptor = try BlobCipher.Decryptor(keys: keys, blobID: id, object: object) { hasher.update($0) }
        try backend.get(object, range: nil, into: DecryptorSink(decryptor))
        try decryptor.finish()
        guard hasher.finalizeHex() == id else {
            throw CryptoError(.unauthenticated, object: object, detail: "content does not match its name")
        }
    }
}

private final class DecryptorSink: ByteSink {
    let decryptor: BlobCipher.Decryptor
    init(_ decryptor: BlobCipher.Decryptor) { self.decryptor = decryptor }
    func write(_ bytes: UnsafeRawBufferPointer) throws { try decryptor.feed(bytes) }
    func reset() throws { throw RemoteError(.protocolError, detail: "verification restarts from the beginning") }
}

/// Reads a plaintext file and yields its secretstream encryption, chunk by chunk.
final class EncryptingSource: ByteSource {
    private let file: FileSource
    private let keys: RepositoryKeys
    private let blobID: String
    private var encryptor: BlobCipher.Encryptor
    private var plain: UnsafeMutableRawBufferPointer
    private var next: UnsafeMutableRawBufferPointer
    private var nextCount = 0
    private var sealed: [UInt8]
    private var sealedCount = 0
    private var sealedOffset = 0
    private var headerSent = false
    private var done = false
    let size: Int64?
    var chunkSealed: (() -> Void)?

    convenience init(path: String, keys: RepositoryKeys, blobID: String) throws {
        try self.init(file: try FileSource(path: path), keys: keys, blobID: blobID)
    }

    /// Encrypts `file` (a whole file or a part of one) as a stream bound to `blobID`, the
    /// stream's name (`BlobLocation.streamName` for a part).
    init(file: FileSource, keys: RepositoryKeys, blobID: String) throws {
        self.file = file
        self.keys = keys
        self.blobID = blobID
        encryptor = try BlobCipher.Encryptor(keys: keys, blobID: blobID)
        plain = .allocate(byteCount: BlobCipher.chunkSize, alignment: 16)
        next = .allocate(byteCount: BlobCipher.chunkSize, alignment: 16)
        sealed = [UInt8](repeating: 0, count: BlobCipher.chunkSize + 64)
        size = file.size.map { BlobCipher.sealedSize(plaintextSize: $0) }
        nextCount = try readChunk(into: next)
    }

    deinit {
        plain.deallocate()
        next.deallocate()
    }

    private func readChunk(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let n = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if n == 0 { break }
            filled += n
        }
        return filled
    }

    /// Seals the next plaintext chunk; a chunk is final when the one after it is empty.
    private func refill() throws {
        swap(&plain, &next)
        let count = nextCount
        nextCount = count == BlobCipher.chunkSize ? try readChunk(into: next) : 0
        let final = nextCount == 0
        sealedCount = try sealed.withUnsafeMutableBytes { out in
            try encryptor.seal(UnsafeRawBufferPointer(rebasing: plain[0..<count]), final: final, into: out)
        }
        sealedOffset = 0
        if final { done = true }
        chunkSealed?()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if !headerSent {
            sealed.replaceSubrange(0..<encryptor.header.count, with: encryptor.header)
            sealedCount = encryptor.header.count
            sealedOffset = 0
            headerSent = true
        }
        if sealedOffset == sealedCount {
            if done { return 0 }
            try refill()
        }
        let n = min(buffer.count, sealedCount - sealedOffset)
        sealed.withUnsafeBytes { src in
            if let from = src.baseAddress { buffer.baseAddress?.copyMemory(from: from + sealedOffset, byteCount: n) }
        }
        sealedOffset += n
        return n
    }

    func rewind() throws -> Bool {
        guard try file.rewind() else { return false }
        encryptor = try BlobCipher.Encryptor(keys: keys, blobID: blobID)
        headerSent = false
        done = false
        sealedCount = 0
        sealedOffset = 0
        nextCount = try readChunk(into: next)
        return true
    }
}

/// Receives sealed bytes and writes authenticated plaintext to a file, hashing it.
final class DecryptingSink: ByteSink {
    private let keys: RepositoryKeys
    private let blobID: String
    private let object: String
    private var file: HashingFile
    private var decryptor: BlobCipher.Decryptor

    init(path: String, keys: RepositoryKeys, blobID: String, object: String) throws {
        self.keys = keys
        self.blobID = blobID
        self.object = object
        let file = try HashingFile(path: path)
        self.file = file
        decryptor = try BlobCipher.Decryptor(keys: keys, blobID: blobID, object: object) { try file.write($0) }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws { try decryptor.feed(bytes) }

    func reset() throws {
        try file.reset(to: 0)
        let file = self.file
        decryptor = try BlobCipher.Decryptor(keys: keys, blobID: blobID, object: object) { try file.write($0) }
    }

    func finish(expecting sha256: String? = nil, blob: String = "") throws {
        try decryptor.finish()
        try file.finish(expecting: sha256, object: object, blob: blob)
    }
}
