import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// Reads one segment of a device's log: from what the scout or the key derivation read
/// ahead, else from the server; authenticated, decoded and checked against the chain.
struct SegmentReader {
    let context: SyncContext

    /// Downloads, authenticates and checks one segment.
    func fetch(path: String, device: String, seq: Int, previous: String,
               readAhead: Downloads? = nil) throws -> (LogSegment, String) {
        let segment: LogSegment, sealedHash: String
        if let read = readAhead?.segment(path) {
            // Authenticated (by the same keys, for the same path) and decoded by the scout.
            (segment, sealedHash) = (read.segment, read.sealedHash)
        } else {
            let sealed: Data
            do {
                sealed = try context.earlySegments?.take(path) ?? context.backend.getData(path)
            } catch let error as RemoteError where error.kind == .notFound {
                throw SyncError(.missing, object: path, detail: "a change-log segment named by a head is missing")
            }
            let plain: Data
            do {
                plain = try context.repository.box.open(sealed, path: path)
            } catch let error as CryptoError {
                throw SyncError(.damaged, object: path, detail: error.detail)
            }
            (segment, sealedHash) = (try LogSegment.decode(plain, path: path), Digest.hex(sealed))
        }
        guard segment.device == device, segment.seq == seq else {
            throw SyncError(.damaged, object: path, detail: "the segment is not the one its name says")
        }
        guard segment.previous == previous else {
            throw SyncError(.rolledBack, object: path, detail: "the segment does not follow the previous one this journal has (dropped, swapped or rolled back)")
        }
        return (segment, sealedHash)
    }
}
