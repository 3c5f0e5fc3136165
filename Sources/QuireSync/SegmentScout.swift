import Foundation
import QuireCrypto
import QuireStore

/// Reads segments ahead of the merging on its own connection, authenticates and decodes
/// them, and asks the prefetcher for the attachments they name. The pulling thread takes
/// each one decoded (the decryption and the JSON parsing were a sixth of its time in a
/// restore, and it is the thread the others wait on) and still checks it is the segment
/// its name says and follows the one before it. A segment the scout could not read or
/// decode is not kept: the pulling thread fetches it itself and reports what is wrong.
/// It reads no further ahead than `keptLimit` bytes of kept segments: the pulling thread
/// takes them in order, so it never waits on the scout for long, and memory stays bounded.
final class SegmentScout: @unchecked Sendable {
    /// A segment read ahead: decoded, and the hash of its sealed bytes (the next one names it).
    struct Read {
        var segment: LogSegment
        var sealedHash: String
        var size: Int
    }

    private let condition = NSCondition()
    private var stopped = false
    private let finished = DispatchGroup()
    private var kept: [String: Read] = [:]
    private var keptBytes = 0
    private var taken = Set<String>()
    /// The scout read every segment of the plan, or stopped at one it could not read.
    private var ended = false
    /// Plaintext bytes of decoded segments kept (a decoded segment takes a few times that).
    static let keptLimit = 16 << 20

    init(segments: [PullPlan.Range], repository: Repository, prefetcher: BlobPrefetcher, blobs: BlobStore) {
        finished.enter()
        let owned = Owned(repository)  // used by this thread alone
        let thread = Thread { [self] in
            defer {
                condition.withLock { ended = true }
                condition.broadcast()
                finished.leave()
            }
            let repository = owned.value
            // Lazily: a plan is ranges of segment numbers, never a list of them.
            for (device, seq) in segments.lazy.flatMap({ plan in plan.seqs.lazy.map { (plan.device, $0) } }) {
                condition.lock()
                while !stopped && keptBytes >= Self.keptLimit { condition.wait() }
                let stop = stopped
                condition.unlock()
                if stop { return }
                let path = LogSegment.path(device: device, seq: seq)
                guard let sealed = try? repository.backend.getData(path),
                      let plain = try? repository.box.open(sealed, path: path),
                      let segment = try? LogSegment.decode(plain, path: path) else { return }
                let read = Read(segment: segment, sealedHash: Digest.hex(sealed), size: plain.count)
                condition.withLock {
                    if !taken.contains(path) {
                        kept[path] = read
                        keptBytes += read.size
                    }
                }
                condition.broadcast()  // the pulling thread may be waiting for it
                for (local, remote) in segment.toDownload.sorted(by: { $0.key < $1.key }) where !blobs.contains(local) {
                    prefetcher.request(local: local, remote: remote)
                }
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// The segment at `path` (it is then the caller's and no longer kept), waiting while the
    /// scout is still on its way to it: fetched again here it was a second request over a
    /// slow link. Nil when the scout stopped before it (it could not read it, or was
    /// stopped): the caller then fetches it itself and reports what is wrong.
    /// The caller asks for segments in the plan's order, the order the scout reads them in.
    func take(_ path: String) -> Read? {
        condition.lock()
        defer { condition.unlock() }
        // A scout out of room holds what comes next already; one that is not is reading on.
        while kept[path] == nil && !ended && !stopped && keptBytes < Self.keptLimit { condition.wait() }
        taken.insert(path)
        guard let read = kept.removeValue(forKey: path) else { return nil }
        keptBytes -= read.size
        condition.broadcast()
        return read
    }

    func stop() {
        condition.withLock { stopped = true }
        condition.broadcast()
        finished.wait()
        condition.withLock { kept = [:]; keptBytes = 0 }
    }
}
