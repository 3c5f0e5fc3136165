import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

extension Repository {
    /// The repository id of a packed attachment (format 2): keyed BLAKE2b of its SHA-256, the
    /// local id every store already knows, so an upload reads the bytes once (to encrypt
    /// them), not twice. Equal attachments still get equal ids, and without the key the
    /// server can neither test a guess of their content nor link the id to a content hash.
    /// (Format-1 blob objects are named by the keyed hash of the bytes; both kinds are read.)
    package func packedID(ofLocal sha256: String) throws -> String {
        guard BlobStore.isValidID(sha256) else { throw CryptoError(.library, detail: "not a SHA-256: \(sha256.prefix(16))") }
        let hasher = try BlobHasher(keys: keys)
        var bytes = Array("quire-packed-blob:".utf8)
        var index = sha256.startIndex
        while index < sha256.endIndex {
            let next = sha256.index(index, offsetBy: 2)
            bytes.append(UInt8(sha256[index..<next], radix: 16) ?? 0)
            index = next
        }
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finalizeHex()
    }

    /// Downloads, authenticates and decrypts `blob` into `destination`, written to a temporary
    /// name and renamed only once every part authenticated, in constant memory. A packed blob
    /// is one ranged GET per part; each part's stream names the blob, the part and the count,
    /// so a pack whose bytes were changed, cut or swapped fails, naming the pack. With
    /// `sha256`, the plaintext is hashed as it streams and must be those bytes: authentic
    /// bytes under the wrong name (a key holder's segment that lies, or a bug) are damage,
    /// never taken in.
    /// - Throws: `RemoteError.notFound` when an object is gone, `CryptoError` when damaged.
    /// `meter` counts the bytes as they arrive (for a progress line).
    package func download(_ blob: RemoteBlob, to destination: String, sha256: String? = nil) throws {
        try download(blob, to: destination, sha256: sha256, meter: nil)
    }

    /// `held` gives bytes of a pack already downloaded (`readParts`); those are not counted.
    func download(_ blob: RemoteBlob, to destination: String, sha256: String?, meter: ByteMeter?,
                  held: (String) -> HeldBytes? = { _ in nil }) throws {
        guard let location = blob.location else { return try downloadBlob(blob.id, to: destination, sha256: sha256) }
        let temp = destination + ".part-" + UUID().uuidString.lowercased()
        defer { unlink(temp) }
        let file = try HashingFile(path: temp)
        let counted = location.extents.allSatisfy { held($0.pack) == nil } ? meter : nil
        try readParts(blob.id, location, held: held) { bytes in
            try file.write(bytes)
            counted?.add(bytes.count)
        } restart: { try file.reset(to: $0) }
        try file.finish(expecting: sha256, object: blob.object, blob: blob.id)
        guard rename(temp, destination) == 0 else {
            throw StoreError.file(destination, "cannot write")
        }
    }

    /// Bytes of a pack already downloaded: from `start`, as many as `bytes` holds (the whole
    /// pack from 0, or one ranged read of several small attachments).
    package struct Window: HeldBytes {
        package let bytes: Data
        package let start: Int64

        /// Where these bytes end in the pack.
        package var end: Int64 { start + Int64(bytes.count) }

        package func read(_ range: Range<Int64>) throws -> Data {
            let base = bytes.startIndex
            return bytes.subdata(in: (base + Int(range.lowerBound - start))..<(base + Int(range.upperBound - start)))
        }
    }

    /// The bytes `range` of `pack`: from `held` as far as it holds them, the rest in one
    /// ranged GET (none when `held` holds it all).
    func window(of pack: String, _ range: Range<Int64>, held: HeldBytes?) throws -> Window {
        guard let kept = try held?.prefix(of: range) else { return try window(of: pack, range) }
        let rest = range.lowerBound + Int64(kept.count)
        guard rest < range.upperBound else { return Window(bytes: kept, start: range.lowerBound) }
        return Window(bytes: kept + (try window(of: pack, rest..<range.upperBound)).bytes, start: range.lowerBound)
    }

    /// The bytes `range` of `pack`, in one ranged GET.
    func window(of pack: String, _ range: Range<Int64>) throws -> Window {
        let sink = DataSink(limit: Int(range.count), expected: Int(range.count))
        try backend.get(pack, range: range, into: sink)
        guard sink.data.count == range.count else {
            throw CryptoError(.unauthenticated, object: pack, detail: "the pack is shorter than its index says")
        }
        return Window(bytes: sink.data, start: range.lowerBound)
    }

    /// Streams the authenticated plaintext of every part of a packed blob into `output`.
    /// `restart` is called when a part's download starts over (with the part's first byte
    /// offset in the plaintext), so whatever `output` kept of it can be dropped.
    /// `held` gives bytes of a pack already downloaded, whose extents are then read from
    /// them (a slice at a time) instead of the server.
    func readParts(_ id: String, _ location: BlobLocation, held: (String) -> HeldBytes? = { _ in nil },
                   into output: @escaping (UnsafeRawBufferPointer) throws -> Void,
                   restart: @escaping (Int64) throws -> Void) throws {
        var plainOffset: Int64 = 0
        for (part, extent) in location.extents.enumerated() {
            let name = BlobLocation.streamName(id, part: part, of: location.extents.count)
            var written: Int64 = 0
            let start = plainOffset
            let sink = PartSink(makeDecryptor: {
                try BlobCipher.Decryptor(keys: self.keys, blobID: name, object: extent.pack) { bytes in
                    written += Int64(bytes.count)
                    try output(bytes)
                }
            }, restart: {
                written = 0
                try restart(start)
            })
            let end = extent.offset + extent.length
            if let kept = held(extent.pack), let heldEnd = kept.end(of: extent.offset..<end) {
                // Held bytes first; the rest (a pack read early only in part) from the server.
                try kept.feed(extent.offset..<heldEnd, into: sink)
                if heldEnd < end {
                    try backend.get(extent.pack, range: heldEnd..<end, into: Replaying(kept, extent.offset..<heldEnd, then: sink))
                }
            } else {
                try backend.get(extent.pack, range: extent.offset..<end, into: sink)
            }
            try sink.finish()
            plainOffset += written
        }
    }

    /// True when the packs holding `blob` are on the server (one ranged GET of a byte of the
    /// first pack, and of the last when it is another); a blob object is checked as before.
    /// `checked` remembers answers across calls, so blobs sharing a pack cost one request.
    package func has(_ blob: RemoteBlob, checked: inout [String: Bool]) throws -> Bool {
        guard let first = blob.location?.extents.first, let last = blob.location?.extents.last else { return try hasBlob(blob.id) }
        for pack in Set([first.pack, last.pack]) {
            if checked[pack] == nil { checked[pack] = try hasObject(pack) }
            if checked[pack] != true { return false }
        }
        return true
    }

    package func has(_ blob: RemoteBlob) throws -> Bool {
        var checked: [String: Bool] = [:]
        return try has(blob, checked: &checked)
    }

    /// Downloads and decrypts `blob` without keeping it, checking every part and that the
    /// plaintext's SHA-256 gives its id.
    /// - Throws: `CryptoError.unauthenticated` naming the object, and the attachment and part
    ///   a damaged byte belongs to.
    package func verify(_ blob: RemoteBlob, held: (String) -> HeldBytes? = { _ in nil }) throws {
        guard let location = blob.location else { return try verifyBlob(blob.id) }
        var hasher = SHA256()
        do {
            try readParts(blob.id, location, held: held) { hasher.update($0) } restart: { _ in
                throw RemoteError(.protocolError, detail: "verification restarts from the beginning")
            }
        } catch let error as CryptoError {
            throw CryptoError(.unauthenticated, object: error.object ?? blob.object,
                              detail: "attachment \(blob.id.prefix(16)) is damaged (\(error.detail))")
        }
        guard try packedID(ofLocal: hasher.finalizeHex()) == blob.id else {
            throw CryptoError(.unauthenticated, object: blob.object, detail: "attachment \(blob.id.prefix(16)) does not match its name")
        }
    }
}

/// A download's file and the SHA-256 of the bytes in it, right also when a part starts over.
final class HashingFile {
    private let file: FileSink
    private let path: String
    private var hasher = SHA256()

    init(path: String) throws {
        file = try FileSink(path: path, cached: false)
        self.path = path
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        hasher.update(bytes)
        try file.write(bytes)
    }

    /// Keeps the first `length` bytes (a part downloaded again), hashing them anew from the
    /// file: rare, so the common path keeps no saved states.
    func reset(to length: Int64) throws {
        try file.reset(to: length)
        hasher = SHA256()
        guard length > 0 else { return }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.file(path, "cannot read again") }
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while offset < length {
            let n = pread(fd, buffer.baseAddress, Int(min(Int64(buffer.count), length - offset)), off_t(offset))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw StoreError.file(path, "cannot read again") }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            offset += Int64(n)
        }
    }

    /// Flushes the file; with `sha256`, checks the bytes are those.
    /// - Throws: `CryptoError.unauthenticated` naming `object` when they are not.
    func finish(expecting sha256: String?, object: String, blob: String) throws {
        if let sha256, hasher.finalizeHex() != sha256 {
            throw CryptoError(.unauthenticated, object: object,
                              detail: "attachment \(blob.prefix(16)) is authentic but not the bytes its id \(sha256.prefix(12)) names")
        }
        try file.sync()
    }
}

/// The rest of an extent whose start was held: a request begun again starts the part again,
/// so the held bytes go in first once more.
private final class Replaying: ByteSink {
    private let held: HeldBytes
    private let range: Range<Int64>
    private let sink: ByteSink

    init(_ held: HeldBytes, _ range: Range<Int64>, then sink: ByteSink) {
        self.held = held
        self.range = range
        self.sink = sink
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws { try sink.write(bytes) }

    func reset() throws {
        try sink.reset()
        try held.feed(range, into: sink)
    }
}

/// Bytes of a pack in hand before they are asked for: a pack read while the key was derived
/// (`EarlyPacks`, kept in a file), or a ranged read of several small attachments (`Window`).
/// Read a slice at a time, so a held 16 MiB part costs no 16 MiB of memory.
package protocol HeldBytes {
    /// Where the held bytes begin and end in the pack.
    var start: Int64 { get }
    var end: Int64 { get }
    /// The held bytes `range`, which lies within `start..<end`.
    func read(_ range: Range<Int64>) throws -> Data
}

extension HeldBytes {
    /// Where the held part of `range` ends: all of it, or up to `end`; nil when `range` does
    /// not begin inside.
    func end(of range: Range<Int64>) -> Int64? {
        guard range.lowerBound >= start, range.lowerBound < end else { return nil }
        return min(range.upperBound, end)
    }

    /// The bytes of `range` held here from its start on; nil when `range` does not begin inside.
    func prefix(of range: Range<Int64>) throws -> Data? {
        try end(of: range).map { try read(range.lowerBound..<$0) }
    }

    /// Writes the held bytes `range` into `sink`, a slice at a time.
    func feed(_ range: Range<Int64>, into sink: ByteSink) throws {
        var offset = range.lowerBound
        while offset < range.upperBound {
            let next = min(range.upperBound, offset + Int64(heldSlice))
            try read(offset..<next).withUnsafeBytes { try sink.write($0) }
            offset = next
        }
    }
}

private let heldSlice = 1 << 20

/// Feeds one part's download into a fresh decryptor; a retried download starts it anew.
private final class PartSink: ByteSink {
    private let makeDecryptor: () throws -> BlobCipher.Decryptor
    private let restart: () throws -> Void
    private var decryptor: BlobCipher.Decryptor?

    init(makeDecryptor: @escaping () throws -> BlobCipher.Decryptor, restart: @escaping () throws -> Void) {
        self.makeDecryptor = makeDecryptor
        self.restart = restart
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        if decryptor == nil { decryptor = try makeDecryptor() }
        try decryptor?.feed(bytes)
    }

    func reset() throws {
        try restart()
        decryptor = try makeDecryptor()
    }

    func finish() throws {
        if decryptor == nil { decryptor = try makeDecryptor() }
        try decryptor?.finish()
    }
}
