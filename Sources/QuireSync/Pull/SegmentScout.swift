import Foundation
import QuireSupport
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
final class SegmentScout: Sendable {
    /// A segment read ahead: decoded, and the hash of its sealed bytes (the next one names it).
    struct Read {
        var segment: LogSegment
        var sealedHash: String
        var size: Int
    }

    /// What the readers and the pulling thread share.
    private struct Reading {
        var stopped = false
        var kept: [String: Read] = [:]
        var keptBytes = 0
        var taken = Set<String>()
        /// Segments a thread is reading now.
        var reading = Set<String>()
        /// Every segment of the plan is read or being read.
        var ended = false
        /// Readers still reading.
        var readers = 0
        var next: AnyIterator<(String, Int)>
    }

    private let shared: Shared<Reading>
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
        shared = Shared(Reading(readers: readers,
                                next: AnyIterator(segments.lazy.flatMap { plan in plan.seqs.lazy.map { (plan.device, $0) } }.makeIterator())))
        pool.submit((0..<readers).map { _ in { [self] repository in
            defer { shared.withLock { $0.readers -= 1 } }
            while let path = claim() {
                read(path, with: repository, prefetcher: prefetcher, blobs: blobs)
            }
        } })
    }

    /// The next segment to read, once there is room; nil when there is none or the scout stopped.
    private func claim() -> String? {
        shared.wait(until: { $0.stopped || $0.keptBytes < keptLimit }) { state in
            guard !state.stopped, let (device, seq) = state.next.next() else {
                state.ended = true
                return nil
            }
            let path = LogSegment.path(device: device, seq: seq)
            state.reading.insert(path)
            return path
        }
    }

    private func read(_ path: String, with repository: Repository, prefetcher: BlobPrefetcher, blobs: BlobStore) {
        var read: Read?
        if let sealed = early?.take(path) ?? (try? repository.backend.getData(path)),
           let plain = try? repository.box.open(sealed, path: path),
           let segment = try? LogSegment.decode(plain, path: path) {
            read = Read(segment: segment, sealedHash: Digest.hex(sealed), size: max(plain.count, segment.decodedBytes))
        }
        shared.withLock { state in  // the pulling thread may be waiting for it
            state.reading.remove(path)
            if let read, !state.taken.contains(path) {
                state.kept[path] = read
                state.keptBytes += read.size
            }
        }
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
        // Not yet claimed while the scout has room and segments left, or being read now.
        shared.wait(until: { state in
            state.kept[path] != nil || state.stopped || !(state.reading.contains(path) || (!state.ended && state.keptBytes < keptLimit))
        }) { state in
            state.taken.insert(path)
            guard let read = state.kept.removeValue(forKey: path) else { return nil }
            state.keptBytes -= read.size
            return read
        }
    }

    func stop() {
        shared.withLock { $0.stopped = true }
        shared.wait(until: { $0.readers == 0 }) { state in
            state.kept = [:]
            state.keptBytes = 0
        }
    }
}
