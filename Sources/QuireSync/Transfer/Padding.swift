import Foundation
import QuireCrypto

/// The sizes Quire stores objects at. Packs are filled to one fixed size (`PackPlan`), so
/// most of what the server holds is objects of that one size; the rest (a push's last pack,
/// segments, snapshots) is rounded up to a *bucket*: a size of L bytes keeps its
/// leading bit and the six after it (at least 512-byte steps). That costs under 1/64 (1.6 %)
/// of L, 512 bytes at most for small objects, and tells the server an object's size only to
/// within that step. Padmé (Nikitin et al., PETS 2019), which formats 1–3 used until now,
/// rounds coarser, 6–12 %, and hides less overall: its packs ended at attachment boundaries.
enum Padding {
    /// Mantissa bits kept below the leading one.
    static let precision = 6
    /// The smallest step: a tiny object is one of few sizes.
    static let minimumStep: Int64 = 512
    /// The smallest step of a segment that names no attachment (`LogWriter.seal`): it holds
    /// text, ids and clocks only, and the server learns how much was written in a sync to
    /// within this step, instead of 512 bytes. A sync after one edit is then its text and a
    /// few hundred bytes, not a kilobyte. A segment naming attachments keeps the 512-byte
    /// floor: its ids do not compress, so finer steps would count the attachments.
    static let textStep: Int64 = 64

    /// The bucket `length` bytes are stored in: the smallest bucket at least as large, in
    /// steps of at least `floor`.
    static func size(_ length: Int64, floor: Int64 = minimumStep) -> Int64 {
        guard length > 0 else { return 0 }
        let step = self.step(length, floor: floor)
        return (length + step - 1) / step * step
    }

    /// The largest bucket no larger than `capacity`: the most bytes an object padded to a
    /// bucket may hold and still be at most `capacity`. 0 when `capacity` is below the first.
    static func room(_ capacity: Int64) -> Int64 {
        guard capacity >= minimumStep else { return 0 }
        let step = self.step(capacity)
        return capacity / step * step
    }

    private static func step(_ length: Int64, floor: Int64 = minimumStep) -> Int64 {
        let exponent = 63 - length.leadingZeroBitCount  // ⌊log₂ L⌋
        return max(floor, Int64(1) << max(0, exponent - precision))
    }
}

extension Padding {
    /// Bytes to add to `plaintext` bytes encrypted as a blob stream (snapshots) so that the
    /// stored object is the bucket of what it would be without them. The stream's chunk
    /// overhead makes a few sizes unreachable: then it comes within one chunk tag (17 bytes) below.
    static func plaintextPadding(for plaintext: Int64) -> Int64 {
        let sealed = BlobCipher.sealedSize(plaintextSize: plaintext)
        var extra = size(sealed) - sealed
        while extra > 0 && BlobCipher.sealedSize(plaintextSize: plaintext + extra) > size(sealed) { extra -= 1 }
        return extra
    }

    /// A small JSON object (a segment) followed by spaces, which JSON allows, so that
    /// sealed with `overhead` bytes of nonce and tag it is a bucket's size.
    static func padJSON(_ data: Data, overhead: Int, floor: Int64 = minimumStep) -> Data {
        let sealed = Int64(data.count + overhead)
        return data + Data(repeating: 0x20, count: Int(size(sealed, floor: floor) - sealed))
    }
}
