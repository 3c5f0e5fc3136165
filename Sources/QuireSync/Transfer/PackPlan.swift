import QuireCrypto

/// What to upload, decided without I/O. Every pack is filled to one size, `target` (or the
/// server's largest accepted body, if smaller), so the server sees objects of one size and
/// learns neither how many attachments a pack holds nor where one ends:
/// - an attachment too large for one pack is cut into parts that each fill a pack alone,
///   cut by its size alone (every part `partSize` bytes but the last), so an interrupted
///   upload resumes part by part whatever else the next push sends;
/// - the last parts of those are packed together first (largest first), then every other
///   attachment is poured into the room left and into new packs, cut at a pack's end into
///   parts of its own (the next part begins the next pack);
/// - only what is left over, the last pack of a push, is smaller: padded to its bucket
///   (`Padding`).
struct PackPlan: Equatable {
    struct Piece: Equatable, Sendable {
        var local: String
        var remote: String
        var part: Int
        var parts: Int
        /// The plaintext bytes of the attachment this piece holds.
        var range: Range<Int64>
        /// Cut at `partSize` from the attachment's size alone: a later push cuts it the same
        /// way, so a part an earlier push stored can stand for this one. A part cut where a
        /// pack ended depends on what else went, and is never resumed.
        var resumable = false
        /// Its encrypted size.
        var sealed: Int64 { BlobCipher.sealedSize(plaintextSize: range.upperBound - range.lowerBound) }
        var streamName: String { BlobLocation.streamName(remote, part: part, of: parts) }
    }

    struct Pack: Equatable, Sendable {
        var pieces: [Piece] = []
        var sealed: Int64 { pieces.reduce(0) { $0 + $1.sealed } }
        /// What the server stores and sees.
        var padded: Int64 { Padding.size(sealed) }
    }

    /// The size packs fill up to, as restic's do: few requests, and a failed upload costs
    /// little to send again.
    static let target: Int64 = 16 << 20
    /// A pack's end never cuts off less than this: the room left stays empty instead.
    static let smallestCut: Int64 = 4 << 10
    /// Attachments up to this size are poured last, so they lie side by side in few packs
    /// (a restore reads runs of them with one ranged request).
    static let smallSize: Int64 = 64 << 10

    var packs: [Pack]
    /// The plaintext size of every part but the last of an attachment too large for a pack.
    var partSize: Int64

    /// Plans `blobs` into packs of at most `limit` bytes as stored; nil when the limit is
    /// too small for even one 64 KiB chunk.
    init?(_ blobs: [(local: String, remote: String, size: Int64)], limit: Int64) {
        let room = Padding.room(min(limit, Self.target))
        guard let partSize = BlobCipher.plaintextSize(fitting: room), partSize >= BlobCipher.chunkSize else { return nil }
        self.partSize = partSize
        var full: [Pack] = [], lastParts: [Piece] = [], poured: [(local: String, remote: String, size: Int64)] = []
        for blob in blobs {
            let size = max(0, blob.size)
            guard size > partSize else { poured.append((blob.local, blob.remote, size)); continue }
            let parts = Int((size + partSize - 1) / partSize)
            for part in 0..<parts {
                let start = Int64(part) * partSize
                let piece = Piece(local: blob.local, remote: blob.remote, part: part, parts: parts,
                                  range: start..<min(size, start + partSize), resumable: true)
                if part < parts - 1 { full.append(Pack(pieces: [piece])) } else { lastParts.append(piece) }
            }
        }
        var bins = PackBins(room: room)
        for piece in lastParts.sorted(by: { $0.sealed > $1.sealed }) { bins.place(piece) }
        let large = poured.filter { $0.size > Self.smallSize }, small = poured.filter { $0.size <= Self.smallSize }
        for blob in large + small { bins.pour(blob) }
        packs = full + bins.packs.filter { !$0.pieces.isEmpty }
    }
}

/// Packs being filled to `room` sealed bytes each.
private struct PackBins {
    let room: Int64
    var packs: [PackPlan.Pack] = []
    var sealed: [Int64] = []
    /// The first pack that may still have room for poured attachments.
    var open = 0

    init(room: Int64) { self.room = room }

    /// Puts `piece` whole in the first pack with room for it, or a new one.
    mutating func place(_ piece: PackPlan.Piece) {
        let index = sealed.firstIndex { $0 + piece.sealed <= room } ?? add()
        packs[index].pieces.append(piece)
        sealed[index] += piece.sealed
    }

    /// Fills the packs from the first with room with the attachment, cutting it where a pack
    /// ends; every piece then knows how many parts it is one of.
    mutating func pour(_ blob: (local: String, remote: String, size: Int64)) {
        var start: Int64 = 0
        var placed: [(pack: Int, piece: Int)] = []
        repeat {
            if open == packs.count { _ = add() }
            let rest = blob.size - start
            let free = room - sealed[open]
            let fits = BlobCipher.sealedSize(plaintextSize: rest) <= free
            // Cut where the pack ends, leaving at least `smallestCut` for the next part.
            let cut = fits ? rest : min(BlobCipher.plaintextSize(fitting: free) ?? 0, rest - PackPlan.smallestCut)
            guard fits || cut >= PackPlan.smallestCut else { open += 1; continue }
            let piece = PackPlan.Piece(local: blob.local, remote: blob.remote, part: placed.count, parts: 0, range: start..<start + cut)
            placed.append((open, packs[open].pieces.count))
            packs[open].pieces.append(piece)
            sealed[open] += piece.sealed
            start += cut
            if !fits { open += 1 }
        } while start < blob.size
        for (pack, piece) in placed { packs[pack].pieces[piece].parts = placed.count }
    }

    private mutating func add() -> Int {
        packs.append(PackPlan.Pack())
        sealed.append(0)
        return packs.count - 1
    }
}
