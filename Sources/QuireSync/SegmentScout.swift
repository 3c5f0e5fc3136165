import Foundation
import QuireStore

/// Reads segments ahead of the merging on its own connection and asks the prefetcher for
/// the attachments they name. Only a hint: the pulling thread authenticates and
/// chain-checks every segment it merges, and asks for its attachments itself too. The
/// sealed bytes it read are kept and handed to the pulling thread, so a segment is not
/// fetched twice (over a 30 ms link that was a round trip per segment on the merging
/// thread's path). It reads no further ahead than `keptLimit` bytes of kept segments: the
/// pulling thread takes them in order, so it never waits on the scout for long, and
/// memory stays bounded.
final class SegmentScout: @unchecked Sendable {
    private let condition = NSCondition()
    private var stopped = false
    private let finished = DispatchGroup()
    private var kept: [String: Data] = [:]
    private var keptBytes = 0
    private var taken = Set<String>()
    static let keptLimit = 8 << 20

    init(segments: [PullPlan.Range], repository: Repository, prefetcher: BlobPrefetcher, blobs: BlobStore) {
        finished.enter()
        let owned = Owned(repository)  // used by this thread alone
        let thread = Thread { [self] in
            defer { finished.leave() }
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
                      let map = LogSegment.blobMap(plain) else { return }
                condition.withLock {
                    if !taken.contains(path) {
                        kept[path] = sealed
                        keptBytes += sealed.count
                    }
                }
                // The map's order is not the segment's; requests go in id order.
                for (local, remote) in map.sorted(by: { $0.key < $1.key }) where !blobs.contains(local) {
                    prefetcher.request(local: local, remote: remote)
                }
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// The sealed bytes of `path` if the scout read them (they are then the caller's and no
    /// longer kept); nil when it did not, or not yet.
    func take(_ path: String) -> Data? {
        condition.lock()
        defer { condition.unlock() }
        taken.insert(path)
        guard let sealed = kept.removeValue(forKey: path) else { return nil }
        keptBytes -= sealed.count
        condition.broadcast()
        return sealed
    }

    func stop() {
        condition.withLock { stopped = true }
        condition.broadcast()
        finished.wait()
        condition.withLock { kept = [:]; keptBytes = 0 }
    }
}
