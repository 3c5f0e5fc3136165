import Foundation
import QuireCrypto
import QuireRemote

/// A pack the server lost, made again under its own name from this store's attachments: a
/// pack is its pieces end to end (`PackPlan.Pack`), and each piece is a secretstream of its
/// own whose associated data names the attachment, the part and the number of parts, sized
/// by its plaintext alone. So every piece this store needs is sealed anew at the very offset
/// and length it had, and every location that names the pack — in any segment or snapshot,
/// on any device — reads it as before: nothing is announced, nothing moves. Where a piece
/// this store does not hold lay (an attachment deleted since, or one it lacks), random bytes
/// of the same length stand: unreadable, as the lost bytes now are.
struct PackRebuild: Equatable {
    /// One stretch of the pack: a piece to seal, or filler.
    struct Span: Equatable {
        var offset: Int64
        var length: Int64
        var piece: PackPlan.Piece?
    }

    let pack: String
    private(set) var spans: [Span] = []
    /// Attachments with a part in the pack that this store cannot put back (local ids).
    private(set) var unrecoverable: [String] = []
    /// The size to store: the last extent's end, padded to its bucket as every pack is.
    var size: Int64 { Padding.size(spans.last.map { $0.offset + $0.length } ?? 0) }

    /// - Parameters:
    ///   - locations: where each attachment this store needs lives (local id → remote id and
    ///     location), as recorded.
    ///   - held: whether this store has an attachment's bytes.
    init(pack: String, locations: [String: (remote: String, location: BlobLocation)], held: (String) -> Bool) {
        self.pack = pack
        var found: [(offset: Int64, length: Int64, piece: PackPlan.Piece?, local: String)] = []
        for (local, blob) in locations.sorted(by: { $0.key < $1.key }) {
            let extents = blob.location.extents
            guard extents.contains(where: { $0.pack == pack }) else { continue }
            // Each part's plaintext follows the one before: its size is its sealed length's.
            var start: Int64 = 0
            var sizes: [Int64] = []
            for extent in extents { sizes.append(Self.plaintextSize(sealed: extent.length) ?? -1) }
            let readable = held(local) && !sizes.contains(-1)
            for (part, extent) in extents.enumerated() {
                defer { start += max(0, sizes[part]) }
                guard extent.pack == pack else { continue }
                let piece = readable ? PackPlan.Piece(local: local, remote: blob.remote, part: part, parts: extents.count,
                                                      range: start..<start + sizes[part]) : nil
                found.append((extent.offset, extent.length, piece, local))
            }
            if !readable { unrecoverable.append(local) }
        }
        // End to end from 0; a stretch no recorded location names (a piece deleted since) is filler.
        var offset: Int64 = 0
        for item in found.sorted(by: { $0.offset < $1.offset }) {
            guard item.offset >= offset else { unrecoverable.append(item.local); continue }  // overlapping: not a pack Quire wrote
            if item.offset > offset { spans.append(Span(offset: offset, length: item.offset - offset, piece: nil)) }
            spans.append(Span(offset: item.offset, length: item.length, piece: item.piece))
            offset = item.offset + item.length
        }
    }

    /// The pack's stretches as `PackSource` uploads them.
    var stretches: [PackSource.Stretch] { spans.map { $0.piece.map(PackSource.Stretch.piece) ?? .filler($0.length) } }

    /// The plaintext size whose sealed size is `sealed` exactly; nil when none is.
    static func plaintextSize(sealed: Int64) -> Int64? {
        if sealed == BlobCipher.sealedSize(plaintextSize: 0) { return 0 }
        guard let size = BlobCipher.plaintextSize(fitting: sealed), BlobCipher.sealedSize(plaintextSize: size) == sealed else { return nil }
        return size
    }
}
