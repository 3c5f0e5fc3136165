import Foundation
import QuireCrypto

/// Padmé (Nikitin et al., "Reducing Metadata Leakage from Encrypted Files and Communication
/// with PURBs", PETS 2019): every object Quire stores is padded to one of few sizes, so the
/// server learns neither how many attachments a pack holds nor how big each is. A size of
/// L bytes keeps only its top ⌊log₂ ⌊log₂ L⌋⌋ + 1 bits: at most 12 % overhead, less for
/// large objects, and O(log log L) bits of the size leak.
enum Padding {
    static func padme(_ length: Int64) -> Int64 {
        guard length > 2 else { return max(length, 0) }
        let e = Int64(63 - length.leadingZeroBitCount)          // ⌊log₂ L⌋
        let s = Int64(64 - e.leadingZeroBitCount)               // ⌊log₂ e⌋ + 1
        let mask: Int64 = (1 << (e - s)) - 1
        return (length + mask) & ~mask
    }
}

extension Padding {
    /// Bytes to add to `plaintext` bytes encrypted as a blob stream (snapshots) so that the
    /// stored object is the Padmé size of what it would be without them. The stream's chunk
    /// overhead makes a few sizes unreachable: then it comes within one chunk tag (17 bytes) below.
    static func plaintextPadding(for plaintext: Int64) -> Int64 {
        let sealed = BlobCipher.sealedSize(plaintextSize: plaintext)
        var extra = padme(sealed) - sealed
        while extra > 0 && BlobCipher.sealedSize(plaintextSize: plaintext + extra) > padme(sealed) { extra -= 1 }
        return extra
    }

    /// A small JSON object (a segment, a head) followed by spaces, which JSON allows, so that
    /// sealed with `overhead` bytes of nonce and tag it is a Padmé size.
    static func padJSON(_ data: Data, overhead: Int) -> Data {
        let sealed = Int64(data.count + overhead)
        return data + Data(repeating: 0x20, count: Int(padme(sealed) - sealed))
    }
}
