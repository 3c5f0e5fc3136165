import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// Pull: new segments of every device, in order, authenticated and chained, their
/// attachments taken in (in the background when there are worker connections), each merged
/// in one transaction with its log position.
extension Syncer {
    @discardableResult
    func pull(into report: inout SyncReport, progress: ((String) -> Void)? = nil, usedSnapshot: Bool = false) throws -> [String: [Int]] {
        let heads = try readHeads()
        var logs = try store.syncLogs()
        if heads.isEmpty && !logs.isEmpty {
            throw SyncError(.emptied, object: Self.headsFolder,
                            detail: "the repository at \(backend.location) shows no change logs, but this journal synced with it before")
        }
        for (device, seen) in logs.sorted(by: { $0.key < $1.key }) where seen.seq > 0 {
            guard let newest = heads[device]?.max() else {
                throw SyncError(.missing, object: "heads/\(device).\(seen.seq)", detail: "a device's change log vanished from the server")
            }
            if newest < seen.seq {
                throw SyncError(.rolledBack, object: "heads/\(device).\(newest)",
                                detail: "the server shows segment \(newest) of a device whose segment \(seen.seq) this journal already has")
            }
        }
        // A new device starts from the newest snapshot instead of replaying every segment.
        if logs.isEmpty && !usedSnapshot, let snapshot = try newestSnapshot() {
            try adoptSnapshot(snapshot, into: &report, progress: progress)
            logs = try store.syncLogs()
        }
        var plan: [(device: String, seqs: ClosedRange<Int>)] = []
        for (device, seqs) in heads.sorted(by: { $0.key < $1.key }) {
            // A snapshot may put a log ahead of a head the server shows: nothing to plan then.
            let (first, newest) = ((logs[device]?.seq ?? 0) + 1, seqs.max() ?? 0)
            guard first <= newest else { continue }
            // A head name is the server's word, unauthenticated until its segments are read:
            // `heads/<device>.9223372036854775807` must cost an error, not a walk to Int.max.
            guard newest - first < Self.maxNewSegments else {
                throw SyncError(.damaged, object: "\(Self.headsFolder)/\(device).\(newest)",
                                detail: "a head claims \(newest - first + 1) new segments, more than a device writes (at most \(Self.maxNewSegments))")
            }
            plan.append((device, first...newest))
        }
        let downloads = startDownloads(ahead: plan)
        defer { downloads?.stop() }
        let pulling = PullProgress(segments: plan.reduce(0) { $0 + $1.seqs.count }, report: progress)
        for (device, seqs) in heads.sorted(by: { $0.key < $1.key }) {
            guard let newest = seqs.max() else { continue }
            var (seq, hash) = logs[device] ?? (0, "")
            while seq < newest {
                try stopIfCancelled()
                let path = LogSegment.path(device: device, seq: seq + 1)
                pulling.show(report)
                let segment: LogSegment, sealedHash: String
                do {
                    (segment, sealedHash) = try fetchSegment(path: path, device: device, seq: seq + 1, previous: hash, readAhead: downloads)
                } catch let error as SyncError where error.kind == .missing && !usedSnapshot {
                    // Pruned after a snapshot that covers it: start from the snapshot, then go on.
                    guard let snapshot = try newestSnapshot() else { throw error }
                    downloads?.stop()
                    try adoptSnapshot(snapshot, into: &report, progress: progress)
                    return try pull(into: &report, progress: progress, usedSnapshot: true)
                }
                try fetchBlobs(of: segment, using: downloads?.prefetcher, into: &report)
                checkpoint("pull-before-merge")
                let merged = try naming(path) {
                    try store.merge(segment.changes, log: device, seq: segment.seq, hash: sealedHash) {
                        try checkAttachments(after: segment.changes) { segment.remote($0) }
                        checkpoint("merge-before-commit")
                    }
                }
                report.fieldsMerged += device == store.deviceID ? 0 : merged.applied
                report.conflicts += merged.conflicts
                report.segmentsPulled += 1
                (seq, hash) = (segment.seq, sealedHash)
                checkpoint("pull-after-merge")
            }
        }
        return heads
    }

    /// Runs a merge of `object`'s changes; a value the store refuses (out of range, the wrong
    /// type) is damage of that object, and the error names it.
    func naming<T>(_ object: String, _ merge: () throws -> T) throws -> T {
        do {
            return try merge()
        } catch let error as StoreError where error.kind == .malformed {
            throw SyncError(.damaged, object: object, detail: error.detail)
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
        let sealed: Data
        do {
            // What the scout read is authenticated and checked here like anything fetched.
            sealed = try readAhead?.segment(path) ?? backend.getData(path)
        } catch let error as RemoteError where error.kind == .notFound {
            throw SyncError(.missing, object: path, detail: "a change-log segment named by a head is missing")
        }
        let plain: Data
        do {
            plain = try repository.box.open(sealed, path: path)
        } catch let error as CryptoError {
            throw SyncError(.damaged, object: path, detail: error.detail)
        }
        let segment = try LogSegment.decode(plain, path: path)
        guard segment.device == device, segment.seq == seq else {
            throw SyncError(.damaged, object: path, detail: "the segment is not the one its name says")
        }
        guard segment.previous == previous else {
            throw SyncError(.rolledBack, object: path, detail: "the segment does not follow the previous one this journal has (dropped, swapped or rolled back)")
        }
        return (segment, Digest.hex(sealed))
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

        /// A segment the scout already read, if it did.
        func segment(_ path: String) -> Data? { scout?.take(path) }

        func stop() {
            guard !stopped else { return }
            stopped = true
            scout?.stop()
            prefetcher.close()
        }
    }

    /// Starts background downloads over the worker connections, or nil without them.
    func startDownloads(ahead plan: [(device: String, seqs: ClosedRange<Int>)]) -> Downloads? {
        guard !plan.isEmpty, workerBackends.count >= 2 else { return nil }
        var repositories = workerRepositories()
        let scoutRepository = plan.count > 1 || plan[0].seqs.count > 1 ? repositories.removeFirst() : nil
        let blobs = store.blobs
        let prefetcher = BlobPrefetcher(workers: repositories) { try blobs.temporaryPath() }
        let scout = scoutRepository.map { SegmentScout(segments: plan, repository: $0, prefetcher: prefetcher, blobs: blobs) }
        return Downloads(prefetcher: prefetcher, scout: scout)
    }

    /// Background downloads on every worker connection (no scout), or nil without workers.
    func startPrefetcher() -> BlobPrefetcher? {
        guard !workerBackends.isEmpty else { return nil }
        let blobs = store.blobs
        return BlobPrefetcher(workers: workerRepositories()) { try blobs.temporaryPath() }
    }

    /// One repository handle per worker connection.
    func workerRepositories() -> [Repository] {
        workerBackends.map { Repository(backend: $0, id: repository.id, keys: repository.keys, keyName: repository.keyName) }
    }
}
