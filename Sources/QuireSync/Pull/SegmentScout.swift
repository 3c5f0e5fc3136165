import Foundation
import QuireCrypto
import QuireStore

/// Reads segments ahead of the merging on threads of the pull's `WorkerPool` (each taking
/// the next segment in plan order), authenticates and decodes them, and asks the prefetcher
/// for the attachments they name. The pulling thread takes each one decoded (the decryption
/// and the JSON parsing were a sixth of its time in a restore, and it is the thread the
/// others wait on) and still checks it is the segment its name says and follows the one
/// before it. A segment the scout could not read or decode is not kept: the pulling thread
/// fetches it itself and reports what is wrong. More than one connection, because one
/// reading a segment per round trip was what a restore 30 ms away waited on.
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
    /// Segments a thread is reading now.
    private var reading = Set<String>()
    /// Every segment of the plan is read or being read.
    private var ended = false
    private var next: AnyIterator<(String, Int)>
    /// Plaintext bytes of decoded segments kept at most (a decoded segment takes a few times
    /// that): `SyncOptions.readAheadLimit`, 16 MiB.
    private let keptLimit: Int
    /// Segments fetched while the key derivation ran.
    private let early: EarlySegments?

    /// Reads on `readers` threads of `pool`, submitted before any other job so they start at
    /// once; each gives its thread back to the pool's other jobs (the prefetcher's downloads)
    /// once the plan is read. While the kept segments are full, a reader waits holding its
    /// thread: handed back to the pool, it would queue behind every download asked for and
    /// the merging would wait on them. `pool` must keep a thread for the downloads.
    init(segments: [PullPlan.Range], pool: WorkerPool<Repository>, readers: Int, keptLimit: Int,
         early: EarlySegments? = nil, prefetcher: BlobPrefetcher, blobs: BlobStore) {
        self.keptLimit = keptLimit
        self.early = early
        precondition(readers < pool.width, "the prefetcher needs a thread of the pool")
        // Lazily: a plan is ranges of segment numbers, never a list of them.
        next = AnyIterator(segments.lazy.flatMap { plan in plan.seqs.lazy.map { (plan.device, $0) } }.makeIterator())
        for _ in 0..<readers { finished.enter() }
        pool.submit((0..<readers).map { _ in { [self] repository in
            defer { finished.leave() }
            while let path = claim() {
                read(path, with: repository, prefetcher: prefetcher, blobs: blobs)
            }
        } })
    }

    /// The next segment to read, once there is room; nil when there is none or the scout stopped.
    private func claim() -> String? {
        condition.lock()
        defer { condition.unlock() }
        while !stopped && keptBytes >= keptLimit { condition.wait() }
        guard !stopped, let (device, seq) = next.next() else {
            ended = true
            condition.broadcast()
            return nil
        }
        let path = LogSegment.path(device: device, seq: seq)
        reading.insert(path)
        return path
    }

    private func read(_ path: String, with repository: Repository, prefetcher: BlobPrefetcher, blobs: BlobStore) {
        var read: Read?
        if let sealed = early?.take(path) ?? (try? repository.backend.getData(path)),
           let plain = try? repository.box.open(sealed, path: path),
           let segment = try? LogSegment.decode(plain, path: path) {
            read = Read(segment: segment, sealedHash: Digest.hex(sealed), size: max(plain.count, segment.decodedBytes))
        }
        condition.withLock {
            reading.remove(path)
            if let read, !taken.contains(path) {
                kept[path] = read
                keptBytes += read.size
            }
        }
        condition.broadcast()  // the pulling thread may be waiting for it
        guard let segment = read?.segment else { return }
        // Small ones wait for the batch the pull asks for (`BlobPrefetcher.readsAlong`).
        prefetcher.request(segment.toDownload.sorted(by: { $0.key < $1.key })
            .filter { !blobs.contains($0.key) && !BlobPrefetcher.readsAlong($0.value) }.map { ($0.key, $0.value) })
    }

    /// The segment at `path` (it is then the caller's and no longer kept), waiting while the
    /// scout is reading it or has yet to: fetched again here it was a second request over a
    /// slow link. Nil when the scout could not read it or was stopped: the caller then
    /// fetches it itself and reports what is wrong.
    /// The caller asks for segments in the plan's order, the order the scout reads them in.
    func take(_ path: String) -> Read? {
        condition.lock()
        defer { condition.unlock() }
        // Not yet claimed while the scout has room and segments left, or being read now.
        while kept[path] == nil && !stopped && (reading.contains(path) || (!ended && keptBytes < keptLimit)) {
            condition.wait()
        }
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
