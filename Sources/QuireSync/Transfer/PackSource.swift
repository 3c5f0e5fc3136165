import Foundation
import QuireCrypto
import QuireRemote

/// A pack as it uploads: each piece's secretstream in turn, read from the store's blob files
/// as it goes (constant memory, whatever the pack holds), then zeros up to the padded size.
/// Its size is known before the first byte, so the server is told the length up front. A
/// pack made again after the server lost it (`PackRebuild`) may have filler between its
/// pieces: random bytes where a piece this store does not hold lay.
final class PackSource: ByteSource {
    /// One stretch of a pack: a piece sealed from its blob file, or random filler.
    enum Stretch {
        case piece(PackPlan.Piece)
        case filler(Int64)
    }

    private let stretches: [Stretch]
    private let keys: RepositoryKeys
    private let path: (String) -> String
    private var index = 0
    private var current: EncryptingSource?
    private var filled: Int64 = 0
    private var sent: Int64 = 0
    let size: Int64?
    /// Called with the bytes of each read (progress).
    var onBytes: ((Int) -> Void)?
    /// Called as each 64 KiB chunk is sealed (tests crash here).
    var chunkSealed: (() -> Void)?

    /// - Parameter path: the file of a local blob id.
    convenience init(_ pack: PackPlan.Pack, keys: RepositoryKeys, path: @escaping (String) -> String) {
        self.init(pack.pieces.map(Stretch.piece), size: pack.padded, keys: keys, path: path)
    }

    init(_ stretches: [Stretch], size: Int64, keys: RepositoryKeys, path: @escaping (String) -> String) {
        self.stretches = stretches
        self.keys = keys
        self.path = path
        self.size = size
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = try fill(buffer)
        sent += Int64(n)
        onBytes?(n)
        return n
    }

    private func fill(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while index < stretches.count {
            switch stretches[index] {
            case .piece(let piece):
                if current == nil {
                    let file = try FileSource(path: path(piece.local), range: piece.range)
                    let source = try EncryptingSource(file: file, keys: keys, blobID: piece.streamName)
                    source.chunkSealed = chunkSealed
                    current = source
                }
                if let n = try current?.read(into: buffer), n > 0 { return n }
                current = nil
            case .filler(let length) where filled < length:
                let n = Int(min(Int64(buffer.count), length - filled))
                let random = Sodium.randomBytes(n)
                random.withUnsafeBytes { raw in if let base = raw.baseAddress { buffer.baseAddress?.copyMemory(from: base, byteCount: n) } }
                filled += Int64(n)
                return n
            case .filler:
                filled = 0
            }
            index += 1
        }
        // The pieces are exactly their planned sizes (planned from the files' sizes); the
        // rest is padding.
        let left = (size ?? 0) - sent
        guard left > 0 else { return 0 }
        let n = Int(min(Int64(buffer.count), left))
        buffer.baseAddress?.initializeMemory(as: UInt8.self, repeating: 0, count: n)
        return n
    }

    func rewind() throws -> Bool {
        index = 0
        current = nil
        filled = 0
        sent = 0
        return true
    }
}
