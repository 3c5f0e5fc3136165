import Foundation
import QuireCrypto
import QuireRemote

/// A pack as it uploads: each piece's secretstream in turn, read from the store's blob files
/// as it goes (constant memory, whatever the pack holds), then zeros up to the padded size.
/// Its size is known before the first byte, so the server is told the length up front.
final class PackSource: ByteSource {
    private let pack: PackPlan.Pack
    private let keys: RepositoryKeys
    private let path: (String) -> String
    private var index = 0
    private var current: EncryptingSource?
    private var sent: Int64 = 0
    let size: Int64?
    /// Called with the bytes of each read (progress).
    var onBytes: ((Int) -> Void)?
    /// Called as each 64 KiB chunk is sealed (tests crash here).
    var chunkSealed: (() -> Void)?

    /// - Parameter path: the file of a local blob id.
    init(_ pack: PackPlan.Pack, keys: RepositoryKeys, path: @escaping (String) -> String) {
        self.pack = pack
        self.keys = keys
        self.path = path
        size = pack.padded
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = try fill(buffer)
        sent += Int64(n)
        onBytes?(n)
        return n
    }

    private func fill(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while index < pack.pieces.count {
            if current == nil {
                let piece = pack.pieces[index]
                let file = try FileSource(path: path(piece.local), range: piece.range)
                let source = try EncryptingSource(file: file, keys: keys, blobID: piece.streamName)
                source.chunkSealed = chunkSealed
                current = source
            }
            if let n = try current?.read(into: buffer), n > 0 { return n }
            current = nil
            index += 1
        }
        // The pieces are exactly `pack.sealed` bytes (their sizes were planned from the
        // files' sizes); the rest is padding.
        let left = pack.padded - sent
        guard left > 0 else { return 0 }
        let n = Int(min(Int64(buffer.count), left))
        buffer.baseAddress?.initializeMemory(as: UInt8.self, repeating: 0, count: n)
        return n
    }

    func rewind() throws -> Bool {
        index = 0
        current = nil
        sent = 0
        return true
    }
}
