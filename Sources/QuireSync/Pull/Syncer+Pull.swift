import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// Pull's front and the steps it shares with restore: runs a `PullEngine`, reads one
/// segment, adopts a snapshot, starts the background downloads.
extension Syncer {
    /// Pulls every device's new segments (`PullEngine`); returns the heads it read.
    /// With `finish` (a restore), a segment is merged without waiting for the attachments it
    /// names to download: they download meanwhile, and `finish` runs once every segment is
    /// merged, with those downloads still under way, to take them in. Nothing may read a
    /// restoring store as whole, and a resumed restore finds what it lacks in the store
    /// (`Store.lackingRemoteBlobs`): the attachments a segment carried are in before it merges.
    @discardableResult
    func pull(into report: inout SyncReport, progress: ((String) -> Void)? = nil,
              finish: ((BlobPrefetcher?, inout SyncReport) throws -> Void)? = nil) throws -> [String: [Int]] {
        let engine = PullEngine(self, report: report, progress: progress, finish: finish)
        defer {
            report = engine.report
            // Packs read during the key derivation serve the first pull alone (a watch's
            // syncer lives on: it must not hold them).
            earlyPacks?.release()
            earlyPacks = nil
        }
        return try engine.run()
    }

    /// Runs a merge of `object`'s changes; a value the store refuses (out of range, the wrong
    /// type) is damage of that object (or of the segment the store names), and the error names it.
    func naming<T>(_ object: String, _ merge: () throws -> T) throws -> T {
        do {
            return try merge()
        } catch let error as StoreError where error.kind == .malformed {
            throw SyncError(.damaged, object: error.path ?? object, detail: error.detail)
        }
    }

    /// Merges a snapshot and moves this store's log positions forward to it.
    func adoptSnapshot(_ snapshot: (device: String, seq: Int), into report: inout SyncReport, progress: ((String) -> Void)?) throws {
        // The snapshot names its attachments before its records: they download meanwhile.
        let prefetcher = startPrefetcher()
        defer { prefetcher?.close() }
        let positions = try loadSnapshot(device: snapshot.device, seq: snapshot.seq, downloads: prefetcher, into: &report, progress: progress)
        let logs = try store.syncLogs()
        for (device, position) in positions where position.seq > (logs[device]?.seq ?? 0) && device != store.deviceID {
            try store.setSyncLog(device, seq: position.seq, hash: position.hash)
        }
    }

    /// Downloads, authenticates and checks one segment.
    func fetchSegment(path: String, device: String, seq: Int, previous: String,
                      readAhead: Downloads? = nil) throws -> (LogSegment, String) {
        let segment: LogSegment, sealedHash: String
        if let read = readAhead?.segment(path) {
            // Authenticated (by the same keys, for the same path) and decoded by the scout.
            (segment, sealedHash) = (read.segment, read.sealedHash)
        } else {
            let sealed: Data
            do {
                sealed = try earlySegments?.take(path) ?? backend.getData(path)
            } catch let error as RemoteError where error.kind == .notFound {
                throw SyncError(.missing, object: path, detail: "a change-log segment named by a head is missing")
            }
            let plain: Data
            do {
                plain = try repository.box.open(sealed, path: path)
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

    /// Background downloads for a pull: worker connections fetch attachments while this
    /// thread merges, and (for more than one segment) a scout reads the segments ahead.
    final class Downloads {
        let prefetcher: BlobPrefetcher
        private let scout: SegmentScout?
        private var stopped = false

        init(prefetcher: BlobPrefetcher, scout: SegmentScout?) {
            self.prefetcher = prefetcher
            self.scout = scout
        }

        /// A segment the scout already read and decoded, if it did.
        func segment(_ path: String) -> SegmentScout.Read? { scout?.take(path) }

        func stop() {
            guard !stopped else { return }
            stopped = true
            scout?.stop()
            prefetcher.close()
        }
    }

    /// Starts background downloads over the worker connections, or nil without them.
    func startDownloads(ahead plan: [PullPlan.Range]) -> Downloads? {
        guard !plan.isEmpty, workerBackends.count >= 2 else { return nil }
        let pool = WorkerPool(workerRepositories())
        // Segments are read ahead on a quarter of the threads (one, for a few workers); once
        // they are read, those threads download too. (More readers only contend for the same
        // cores: the first segments come in while the key derivation runs, `EarlySegments`,
        // and name the attachments first.)
        let segments = plan.reduce(0) { $0 + $1.seqs.count }
        let readers = segments > 1 ? min(segments, max(1, pool.width / 4)) : 0
        let blobs = store.blobs
        let prefetcher = BlobPrefetcher(pool: pool, meter: downloadMeter, held: earlyPacks?.window) { try blobs.temporaryPath() }
        let scout = readers == 0 ? nil : SegmentScout(segments: plan, pool: pool, readers: readers, keptLimit: readAheadLimit,
                                                                early: earlySegments, prefetcher: prefetcher, blobs: blobs)
        return Downloads(prefetcher: prefetcher, scout: scout)
    }

    /// Background downloads on every worker connection (no scout), or nil without workers.
    func startPrefetcher() -> BlobPrefetcher? {
        guard !workerBackends.isEmpty else { return nil }
        let blobs = store.blobs
        return BlobPrefetcher(pool: WorkerPool(workerRepositories()), meter: downloadMeter, held: earlyPacks?.window) { try blobs.temporaryPath() }
    }

    /// One repository handle per worker connection.
    func workerRepositories() -> [Repository] {
        workerBackends.map { Repository(backend: $0, id: repository.id, keys: repository.keys, keyName: repository.keyName) }
    }
}
