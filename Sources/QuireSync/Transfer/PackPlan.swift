import QuireCrypto

/// What to upload, decided without I/O: attachments small enough share packs of up to
/// `target` bytes (restic's packs), larger ones are cut into parts of one pack each (so an
/// interrupted upload resumes part by part), and every pack, padded (Padmé), fits the
/// server's largest accepted body.
struct PackPlan: Equatable {
    struct Piece: Equatable, Sendable {
        var local: String
        var remote: String
        var part: Int
        var parts: Int
        /// The plaintext bytes of the attachment this piece holds.
        var range: Range<Int64>
        /// Its encrypted size.
        var sealed: Int64 { BlobCipher.sealedSize(plaintextSize: range.upperBound - range.lowerBound) }
        var streamName: String { BlobLocation.streamName(remote, part: part, of: parts) }
    }

    struct Pack: Equatable, Sendable {
        var pieces: [Piece] = []
        var sealed: Int64 { pieces.reduce(0) { $0 + $1.sealed } }
        /// What the server stores and sees.
        var padded: Int64 { Padding.padme(sealed) }
    }

    /// The size packs fill up to, as restic's do: few requests, and a failed upload costs
    /// little to send again.
    static let target: Int64 = 16 << 20

    var packs: [Pack]
    /// The plaintext size of every part but the last of a large attachment.
    var partSize: Int64

    /// The largest plaintext part, a whole number of cipher chunks, whose padded pack is at
    /// most `capacity` bytes; nil when not even one chunk fits.
    static func partSize(capacity: Int64) -> Int64? {
        let chunk = Int64(BlobCipher.chunkSize)
        var low: Int64 = 0, high = capacity / chunk + 1  // in chunks
        while low + 1 < high {
            let mid = (low + high) / 2
            if Padding.padme(BlobCipher.sealedSize(plaintextSize: mid * chunk)) <= capacity { low = mid } else { high = mid }
        }
        return low > 0 ? low * chunk : nil
    }

    /// Plans `blobs` into packs of at most `limit` bytes as stored. Attachments up to
    /// `smallSize` are packed apart from larger ones: the small travel inside segments too,
    /// so their packs are seldom read, and a restore's ranged reads stay in the others.
    /// Nil when the limit is too small for even one 64 KiB chunk.
    init?(_ blobs: [(local: String, remote: String, size: Int64)], limit: Int64, smallSize: Int64 = LogSegment.inlineLimit) {
        let capacity = min(limit, Self.target)
        guard let partSize = Self.partSize(capacity: capacity) else { return nil }
        self.partSize = partSize
        packs = []
        var current = Pack()
        let ordered = blobs.filter { $0.size <= smallSize } + blobs.filter { $0.size > smallSize }
        for (index, blob) in ordered.enumerated() {
            let whole = Piece(local: blob.local, remote: blob.remote, part: 0, parts: 1, range: 0..<max(0, blob.size))
            if blob.size > smallSize && index > 0 && ordered[index - 1].size <= smallSize && !current.pieces.isEmpty {
                packs.append(current)  // the small ones end here
                current = Pack()
            }
            if Padding.padme(whole.sealed) <= capacity {
                if !current.pieces.isEmpty && Padding.padme(current.sealed + whole.sealed) > capacity {
                    packs.append(current)
                    current = Pack()
                }
                current.pieces.append(whole)
                continue
            }
            let parts = Int((blob.size + partSize - 1) / partSize)
            for part in 0..<parts {
                let start = Int64(part) * partSize
                let range = start..<min(blob.size, start + partSize)
                packs.append(Pack(pieces: [Piece(local: blob.local, remote: blob.remote, part: part, parts: parts, range: range)]))
            }
        }
        if !current.pieces.isEmpty { packs.append(current) }
    }
}
