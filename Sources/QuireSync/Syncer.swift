import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// What one sync did.
public struct SyncReport: Equatable, Sendable {
    public var segmentsPulled = 0
    public var segmentsPushed = 0
    public var changesPushed = 0
    public var fieldsMerged = 0
    public var conflicts = 0
    public var blobsUploaded = 0
    public var blobsDownloaded = 0
    public init() {}
}

/// Sync between a store and its repository (DESIGN.md, "Remote repository", "Merge",
/// "Failure and hostility"). Pull: one listing of `heads/` tells whether anything changed;
/// new segments of each device are fetched in order, authenticated, checked against the
/// chain, their blobs fetched, and merged in one transaction each. Push: blobs first, then
/// the segment (create-only), then the head; the outbox is cleared only after that.
/// Every step is idempotent, so a sync killed anywhere converges on the next run.
public final class Syncer {
    public let store: Store
    public let repository: Repository
    /// Changes per segment: large first syncs become several segments of bounded size.
    public var changesPerSegment = 5000
    /// The most segments one pull takes from one device's log: far beyond any real device
    /// (a segment per sync, every five minutes for ninety years), far below a forged head.
    static let maxNewSegments = 10_000_000
    /// How long prune lets an unreferenced attachment wait before collecting it (seconds).
    public var collectionGrace: Double = 24 * 3600
    /// Extra connections for downloading attachments in the background, each used by one
    /// thread; when more than one segment is to be pulled, the first reads segments ahead.
    public var workerBackends: [Backend] = []
    /// Test hook: called at named points; a test may crash the process there.
    public var checkpoint: (String) -> Void = { _ in }

    var backend: Backend { repository.backend }
    static let headsFolder = "heads"

    public init(store: Store, repository: Repository) {
        self.store = store
        self.repository = repository
    }

    /// Routes the repository's and backend's step hooks to `checkpoint` (tests kill the
    /// process at named points to prove every step can be interrupted).
    public func installCheckpoints(_ checkpoint: @escaping (String) -> Void) {
        self.checkpoint = checkpoint
        repository.uploadChunk = { checkpoint("blob-upload-chunk") }
        var inner = repository.backend
        if let counting = inner as? CountingBackend { inner = counting.inner }
        (inner as? LocalBackend)?.publishStep = { checkpoint("publish-temp-written") }
        (inner as? WebDAVBackend)?.publishStep = { checkpoint("publish-temp-written") }
    }

    /// Pull, then push.
    public func sync(progress: ((String) -> Void)? = nil) throws -> SyncReport {
        var report = SyncReport()
        let heads = try pull(into: &report, progress: progress)
        try push(heads: heads, into: &report, progress: progress)
        return report
    }

    // MARK: - Heads

    /// Every device's newest segment number, from the names in `heads/`.
    func readHeads() throws -> [String: [Int]] {
        let entries: [RemoteEntry]
        do {
            entries = try backend.list(Self.headsFolder)
        } catch let error as RemoteError where error.kind == .notFound {
            entries = []
        }
        var heads: [String: [Int]] = [:]
        for entry in entries where !entry.isFolder {
            if let head = Head(name: entry.name) { heads[head.device, default: []].append(head.seq) }
        }
        return heads
    }

    // MARK: - Pull

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
                let path = Segment.path(device: device, seq: seq + 1)
                pulling.show(report)
                let segment: Segment, sealedHash: String
                do {
                    (segment, sealedHash) = try fetchSegment(path: path, device: device, seq: seq + 1, previous: hash)
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
    private func adoptSnapshot(_ snapshot: (device: String, seq: Int), into report: inout SyncReport, progress: ((String) -> Void)?) throws {
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
    func fetchSegment(path: String, device: String, seq: Int, previous: String) throws -> (Segment, String) {
        let sealed: Data
        do {
            sealed = try backend.getData(path)
        } catch let error as RemoteError where error.kind == .notFound {
            throw SyncError(.missing, object: path, detail: "a change-log segment named by a head is missing")
        }
        let plain: Data
        do {
            plain = try repository.box.open(sealed, path: path)
        } catch let error as CryptoError {
            throw SyncError(.damaged, object: path, detail: error.detail)
        }
        let segment = try Segment.decode(plain, path: path)
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

        func stop() {
            guard !stopped else { return }
            stopped = true
            scout?.stop()
            prefetcher.close()
        }
    }

    /// Starts background downloads over the worker connections, or nil without them.
    private func startDownloads(ahead plan: [(device: String, seqs: ClosedRange<Int>)]) -> Downloads? {
        guard !plan.isEmpty, workerBackends.count >= 2 else { return nil }
        var repositories = workerRepositories()
        let scoutRepository = plan.count > 1 || plan[0].seqs.count > 1 ? repositories.removeFirst() : nil
        let blobs = store.blobs
        let prefetcher = BlobPrefetcher(workers: repositories) { try blobs.temporaryPath() }
        let scout = scoutRepository.map { SegmentScout(segments: plan, repository: $0, prefetcher: prefetcher, blobs: blobs) }
        return Downloads(prefetcher: prefetcher, scout: scout)
    }

    /// Background downloads on every worker connection (no scout), or nil without workers.
    private func startPrefetcher() -> BlobPrefetcher? {
        guard !workerBackends.isEmpty else { return nil }
        let blobs = store.blobs
        return BlobPrefetcher(workers: workerRepositories()) { try blobs.temporaryPath() }
    }

    /// One repository handle per worker connection.
    private func workerRepositories() -> [Repository] {
        workerBackends.map { Repository(backend: $0, id: repository.id, keys: repository.keys, keyName: repository.keyName) }
    }

    /// Fetches the attachments a segment names that this store lacks — through the background
    /// downloads when there are any, else one by one — and takes them in as one batch, in
    /// order up to the first that failed. One missing on the server is passed over: its
    /// record may be deleted by the time the segment is merged (another device's prune
    /// collects such blobs), and the merge refuses the segment if a live record needs it.
    private func fetchBlobs(of segment: Segment, using prefetcher: BlobPrefetcher?, into report: inout SyncReport) throws {
        var needed: [(local: String, remote: RemoteBlob)] = []
        var carried: [(local: String, remote: String, bytes: Data)] = []
        var known: [(local: String, remote: String, location: String?)] = []
        for (local, remote) in segment.blobs.sorted(by: { $0.key < $1.key }) {
            guard BlobStore.isValidID(local), BlobStore.isValidID(remote) else {
                throw SyncError(.damaged, object: Segment.path(device: segment.device, seq: segment.seq),
                                detail: "an attachment has an invalid id")
            }
            // Where every named blob lives, kept: a push of this store that names it later
            // names it with its location, and never uploads it again.
            known.append((local, remote, segment.packed[remote]?.text))
            guard !store.hasBlob(local) else { continue }
            if let bytes = segment.inline[local] {
                carried.append((local, remote, bytes))
            } else {
                needed.append((local, RemoteBlob(id: remote, location: segment.packed[remote])))
            }
        }
        try store.setRemoteBlobs(known, confirmed: true)
        // Asked for before the carried ones are written, so they download meanwhile (takeIn
        // asks again, which changes nothing).
        for item in needed { prefetcher?.request(local: item.local, remote: item.remote) }
        try takeInCarried(carried, into: &report)
        try takeIn(needed, using: prefetcher, passingOverMissing: true, into: &report)
    }

    /// Takes attachments a segment carried inline into the store: written to temporary files,
    /// then taken in as one batch.
    private func takeInCarried(_ carried: [(local: String, remote: String, bytes: Data)], into report: inout SyncReport) throws {
        var written: [DownloadedBlob] = []
        defer { for blob in written { unlink(blob.path) } }  // gone once adopted; left over only after an error
        for item in carried {
            let temp = try store.blobs.temporaryPath()
            written.append(DownloadedBlob(path: temp, id: item.local, remoteID: item.remote))
            try FileIO.writeNewFile(temp, item.bytes)
        }
        try takeInWritten(written, into: &report)
    }

    /// Takes attachments written (not yet flushed) to temporary files in the store in: their
    /// data flushed together, then adopted as one batch.
    func takeInWritten(_ written: [DownloadedBlob], into report: inout SyncReport) throws {
        guard !written.isEmpty else { return }
        for _ in written { checkpoint("blob-downloaded") }
        try store.adoptDownloadedBlobs(written, flushed: false)
        report.blobsDownloaded += written.count
    }

    /// Inside a merge's transaction: refuses it when a live attachment it touched lacks its
    /// blob although `map` names it (missing on the server). One the map does not name is let
    /// be: while logs are replayed, a record can be live here for a moment that was not live
    /// for the segment's writer (its entry deleted there, still a placeholder here), and the
    /// segment or snapshot that makes it live for good names its blob.
    func checkAttachments(after changes: [SyncChange], remote: (String) -> RemoteBlob?) throws {
        for lacking in try store.neededBlobsLacking(after: changes) {
            guard let blob = remote(lacking) else { continue }
            throw SyncError(.missing, object: blob.object, detail: "an attachment is missing on the server")
        }
    }

    /// Takes attachments `needed` into the store — from the background downloads when there
    /// are any, else downloading them one by one here — as one batch, in order up to the
    /// first that failed, whose error is then thrown (with `passingOverMissing`, one missing
    /// on the server is skipped instead).
    func takeIn(_ needed: [(local: String, remote: RemoteBlob)], using prefetcher: BlobPrefetcher?, passingOverMissing: Bool = false,
                into report: inout SyncReport) throws {
        func skippable(_ error: Error) -> Bool { passingOverMissing && (error as? SyncError)?.kind == .missing }
        guard let prefetcher, !needed.isEmpty else {
            for item in needed {
                do {
                    try downloadBlob(local: item.local, remote: item.remote)
                    report.blobsDownloaded += 1
                } catch where skippable(error) {
                    continue
                }
            }
            return
        }
        for item in needed { prefetcher.request(local: item.local, remote: item.remote) }
        var arrived: [DownloadedBlob] = []
        defer { for blob in arrived { unlink(blob.path) } }  // gone once adopted; left over only after an error
        var failure: Error?
        for item in needed {
            switch prefetcher.take(item.local) {
            case .success(let temp):
                checkpoint("blob-downloaded")
                arrived.append(DownloadedBlob(path: temp, id: item.local, remoteID: item.remote.id))
            case .failure(let error) where skippable(error):
                continue
            case .failure(let error):
                failure = error
            }
            if failure != nil { break }
        }
        try store.adoptDownloadedBlobs(arrived)
        report.blobsDownloaded += arrived.count
        if let failure { throw failure }
    }

    func downloadBlob(local: String, remote: RemoteBlob) throws {
        let temp = try store.blobs.temporaryPath()
        defer { unlink(temp) }
        do {
            try repository.download(remote, to: temp)
        } catch let error as RemoteError where error.kind == .notFound {
            throw SyncError(.missing, object: remote.object, detail: "an attachment is missing on the server")
        }
        checkpoint("blob-downloaded")
        try store.adoptDownloadedBlobs([DownloadedBlob(path: temp, id: local, remoteID: remote.id)])
    }

    // MARK: - Push

    func push(heads: [String: [Int]], into report: inout SyncReport, progress: ((String) -> Void)? = nil) throws {
        // A segment the server refused as too large: its limit is learned (halved each time,
        // down to the smallest Quire fits) and the push made again in smaller segments. Nothing
        // was confirmed, and the segments already sent are rewritten under the same names.
        while true {
            do {
                return try pushOnce(heads: heads, into: &report, progress: progress)
            } catch let refused as PackUploader.TooLarge {
                let current = try store.remoteSettings()?.maxObjectSize ?? .max
                let learned = min(current, refused.size) / 2
                guard learned >= Self.smallestObjectLimit else { throw SyncError.bodyLimit(refused.size, refused.error) }
                try store.setMaxObjectSize(learned)
            }
        }
    }

    private func pushOnce(heads: [String: [Int]], into report: inout SyncReport, progress: ((String) -> Void)?) throws {
        guard try store.hasPendingChanges() else { return }
        // Read record by record, a segment at a time: memory stays that of one segment
        // however much is pending (a first sync of a whole journal).
        let pending = try store.pendingRecords()
        let me = store.deviceID
        // 1. Attachments first, packed, over several connections: a segment never names a
        //    blob the server lacks.
        var blobMap: [String: RemoteBlob] = [:]
        let transfer = progress.map { TransferProgress("uploading", report: $0) }
        try upload(try store.pendingBlobs(pending.records).sorted(), into: &blobMap, report: &report, progress: transfer)
        // 2. Segments, each chained to the previous, each of whole records.
        var (seq, hash) = try store.syncLog(me) ?? (0, "")
        var next = 0
        var carried = Set<String>()  // blobs considered for carrying inline in this push
        let budget = SegmentBudget(limit: try store.remoteSettings()?.maxObjectSize)
        while next < pending.records.count {
            var chunk: [SyncChange] = []
            var referenced: [String: RemoteBlob] = [:]
            var inline: [String: Data] = [:]
            var inlineBytes: Int64 = 0, changeBytes: Int64 = 0
            // A segment ends at its change limit, when its inline budget could not take one
            // more small attachment, or (under a server body limit) when it is big enough.
            while next < pending.records.count && chunk.count < changesPerSegment
                    && inlineBytes + budget.inlineLimit <= budget.inline && changeBytes < budget.changes {
                let record = pending.records[next]
                let changes = try store.changes(of: record)
                chunk += changes
                next += 1
                if budget.isLimited { changeBytes += changes.reduce(0) { $0 + SegmentBudget.estimate($1) } }
                // The segment names the blob of every live attachment it carries, so a device
                // that lacks it (or let it go while the record was deleted) fetches it.
                guard record.kind == .media, !changes.isEmpty, let blob = try store.neededBlob(ofMedia: record.id) else { continue }
                // Named by a record written after the list was read: upload it now.
                if blobMap[blob] == nil { try upload([blob], into: &blobMap, report: &report, progress: transfer) }
                referenced[blob] = blobMap[blob]
                // A small attachment no published segment has named yet (since this store last
                // needed it) also travels inside this one.
                if carried.insert(blob).inserted, try store.remoteBlob(blob)?.confirmed != true,
                   let bytes = smallBlob(blob, limit: budget.inlineLimit) {
                    inline[blob] = bytes
                    inlineBytes += Int64(bytes.count)
                }
            }
            guard !chunk.isEmpty else { continue }
            var segment = Segment(device: me, seq: seq + 1, previous: hash, changes: chunk, blobs: referenced.mapValues(\.id))
            segment.inline = inline
            segment.packed = Dictionary(referenced.values.compactMap { b in b.location.map { (b.id, $0) } }, uniquingKeysWith: { a, _ in a })
            let path = Segment.path(device: me, seq: segment.seq)
            let sealed = try repository.box.seal(Padding.padJSON(segment.encoded(), overhead: RecordBox.overhead), path: path)
            progress?("pushing \(path)")
            checkpoint("segment-publish-start")
            // A plain PUT: the name is this device's alone and no head names it yet, so a
            // crash mid-upload leaves nothing anyone reads, and the next push rewrites it.
            do {
                try backend.putData(path, sealed)
            } catch let error as RemoteError where error.kind == .tooLarge {
                throw PackUploader.TooLarge(size: Int64(sealed.count), error: error)
            }
            checkpoint("segment-published")
            (seq, hash) = (segment.seq, Digest.hex(sealed))
            report.segmentsPushed += 1
            report.changesPushed += chunk.count
        }
        // 3. The head, then the old heads go. Only a published head makes segments part of the
        //    log (a crash before it leaves segments the next push finds and adopts).
        try publishHead(seq: seq, hash: hash, previous: heads[me] ?? [], merged: try store.syncLogs())
        try store.setSyncLog(me, seq: seq, hash: hash)
        try store.confirmRemoteBlobs(Array(blobMap.keys))
        checkpoint("head-published")
        // 4. Only now is the push confirmed.
        try store.markPushed(upTo: pending.watermark)
    }

    /// The bytes of blob `blob` when it is small enough to travel inline (nil otherwise, or
    /// when it cannot be read: the blob object is there either way).
    func smallBlob(_ blob: String, limit: Int64 = Segment.inlineLimit) -> Data? {
        let path = store.blobs.path(for: blob)
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int64,
              size <= limit else { return nil }
        return FileManager.default.contents(atPath: path)
    }

    /// The head names this device's newest segment; inside (sealed) it also says how far this
    /// device has merged every other log, which tells `prune` what it may delete.
    private func publishHead(seq: Int, hash: String, previous: [Int], merged: [String: (seq: Int, hash: String)]) throws {
        let head = Head(device: store.deviceID, seq: seq)
        let path = Self.headsFolder + "/" + head.name
        let positions = merged.mapValues { JSONValue.number(Double($0.seq)) }
        let body = Data(JSONWriter.value(.object(["device": .string(head.device), "seq": .number(Double(seq)), "hash": .string(hash),
                                                  "merged": .object(positions)])).utf8)
        // Heads are read by name; the content only helps `prune`, which ignores a head it
        // cannot open. So a plain PUT will do.
        try backend.putData(path, try repository.box.seal(Padding.padJSON(body, overhead: RecordBox.overhead), path: path))
        // Old heads go a few at a time (the newest counts), to keep a sync at 4 requests.
        let stale = previous.filter { $0 < seq }
        if stale.count >= 3 {
            for old in stale { try? backend.delete(Self.headsFolder + "/" + Head(device: store.deviceID, seq: old).name) }
        }
        checkpoint("heads-cleaned")
    }
}
