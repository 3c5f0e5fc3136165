import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// Checks that every object the journal needs is present and authentic: each device's chain
/// of segments from the first (or from where the newest snapshot, checked in full, left it)
/// to its head, and every attachment they reference that this journal does not know to be
/// unneeded (with `readData`, downloaded and decrypted in full). Never stops at the first
/// problem.
final class VerifyEngine {
    private let context: SyncContext
    private var store: Store { context.store }
    private var backend: Backend { context.backend }
    private let readData: Bool
    private let progress: ((String) -> Void)?
    /// What was looked at and found so far.
    private(set) var report = VerifyReport()
    /// The attachments to check, by remote id, with the object that named them first.
    private var blobs: [String: (blob: RemoteBlob, referrer: String)] = [:]
    /// Folders' listings, one per folder, read when first needed.
    private var listings: [String: Set<String>] = [:]
    /// With `readData`, a pack holding more than one extent to check is downloaded whole, once,
    /// and its extents are read from memory: blobs are taken pack by pack, so one is held at a time.
    private var extentsIn: [String: Int] = [:]
    private var held: (pack: String, bytes: Data)?

    init(_ context: SyncContext, readData: Bool, progress: ((String) -> Void)?) {
        self.context = context
        self.readData = readData
        self.progress = progress
    }

    func run() throws -> VerifyReport {
        let heads = try Heads(context: context).read()
        try checkRollback(heads)
        let start = try checkSnapshot()
        let unneeded = try store.unneededRemoteBlobs()
        for (device, seqs) in heads.sorted(by: { $0.key < $1.key }) {
            report.devices += 1
            try checkChain(device: device, newest: seqs.max() ?? 0, after: start[device], unneeded: unneeded)
        }
        // And every attachment this journal needs, where it knows it lives: a broken chain
        // must not hide a lost pack.
        for (_, blob) in try store.neededBlobLocations(confirmedOnly: true).sorted(by: { $0.key < $1.key }) where blobs[blob.remote] == nil {
            blobs[blob.remote] = (RemoteBlob(id: blob.remote, location: BlobLocation(text: blob.location)), "this journal")
        }
        try checkBlobs()
        return report
    }

    private func problem(_ object: String, _ detail: String) {
        report.problems.append(VerifyProblem(object: object, detail: detail))
    }

    /// Heads gone, or behind what this journal has seen: a server rolled back.
    private func checkRollback(_ heads: [String: [Int]]) throws {
        let logs = try store.syncLogs()
        if heads.isEmpty && !logs.isEmpty {
            problem(Heads.folder, "no change logs at all, but this journal synced here before")
        }
        for (device, seen) in logs.sorted(by: { $0.key < $1.key }) where seen.seq > 0 {
            let newest = heads[device]?.max() ?? 0
            if newest < seen.seq { problem("heads/\(device)", "rolled back: the server shows segment \(newest), this journal has seen \(seen.seq)") }
        }
    }

    /// Checks the newest snapshot in full; returns where each chain starts after it.
    private func checkSnapshot() throws -> [String: (seq: Int, hash: String)] {
        let snapshots = Snapshots(context: context)
        guard let snapshot = try snapshots.newest() else { return [:] }
        let path = Snapshot.path(device: snapshot.device, seq: snapshot.seq)
        progress?("checking \(path)")
        do {
            let found = try snapshots.positions(device: snapshot.device, seq: snapshot.seq)
            for blob in found.blobs { blobs[blob.id] = (blob, path) }
            return found.positions
        } catch let error as SyncError {
            problem(error.object ?? Snapshot.folder, error.detail)
            return [:]
        }
    }

    /// One device's chain up to `newest`, from its first segment, or (after a prune) from the
    /// snapshot's position; stops at the first broken link, which the rest cannot be checked against.
    /// A segment may name an attachment whose record this journal has since seen deleted (in
    /// `unneeded`): a prune may have collected it, so it is not asked for.
    private func checkChain(device: String, newest: Int, after known: (seq: Int, hash: String)?, unneeded: Set<String>) throws {
        var previous = "", first = 1
        if let known, !(try segmentExists(device: device, seq: 1)) { (first, previous) = (known.seq + 1, known.hash) }
        guard first <= newest else { return }
        let reader = SegmentReader(context: context)
        for seq in first...newest {
            let path = LogSegment.path(device: device, seq: seq)
            progress?("checking \(path)")
            do {
                let (segment, hash) = try reader.fetch(path: path, device: device, seq: seq, previous: previous)
                previous = hash
                report.segments += 1
                // The values every restore checks before it merges them.
                do { try Store.checkValues(segment.changes) } catch let error as StoreError { problem(path, error.detail) }
                for local in segment.blobs.keys {
                    guard let blob = segment.remote(local), blobs[blob.id] == nil, !unneeded.contains(blob.id) else { continue }
                    blobs[blob.id] = (blob, path)
                }
            } catch let error as SyncError {
                problem(error.object ?? path, error.detail)
                return
            }
        }
    }

    /// Every attachment named: its objects present, and with `readData` authentic in full.
    private func checkBlobs() throws {
        for (blob, _) in blobs.values { for extent in blob.location?.extents ?? [] { extentsIn[extent.pack, default: 0] += 1 } }
        let started = Date()
        let order = blobs.sorted { ($0.value.blob.location?.extents.first?.pack ?? "", $0.key) < ($1.value.blob.location?.extents.first?.pack ?? "", $1.key) }
        for (id, (blob, referrer)) in order {
            try context.stopIfCancelled()
            report.blobs += 1
            progress?("\(readData ? "reading" : "checking") \(report.blobs)/\(blobs.count) attachments"
                      + (TransferProgress.timeLeft(since: started, done: Double(report.blobs - 1), of: Double(blobs.count)) ?? ""))
            let objects = blob.location.map { Array(Set($0.extents.map(\.pack))).sorted() } ?? [Repository.blobPath(id)]
            let lacking = objects.filter { !present($0) }
            guard lacking.isEmpty else {
                let what = blob.location == nil ? "missing" : "missing, with part of attachment \(id.prefix(16))"
                for object in lacking { problem(object, "\(what) (referenced by \(referrer))") }
                continue
            }
            guard readData else { continue }
            do {
                try context.repository.verify(blob, held: whole)
                report.blobsRead += 1
            } catch let error as CryptoError {
                problem(error.object ?? blob.object, error.detail)
            } catch let error as RemoteError {
                problem(blob.object, error.detail)
            }
        }
    }

    /// Whether `object` is in its folder's listing.
    private func present(_ object: String) -> Bool {
        let folder = object.lastIndex(of: "/").map { String(object[..<$0]) } ?? ""
        if listings[folder] == nil { listings[folder] = Set(((try? backend.list(folder)) ?? []).map(\.name)) }
        return listings[folder]?.contains(String(object.split(separator: "/").last ?? "")) == true
    }

    /// `pack` downloaded whole when more than one extent in it is to be read.
    private func whole(_ pack: String) -> Repository.Window? {
        guard readData, (extentsIn[pack] ?? 0) > 1 else { return nil }
        if held?.pack != pack { held = (try? backend.getData(pack)).map { (pack, $0) } }
        return held?.pack == pack ? held.map { Repository.Window(bytes: $0.bytes, start: 0) } : nil
    }

    private func segmentExists(device: String, seq: Int) throws -> Bool {
        do {
            return try backend.list("log/" + device).contains { Int($0.name) == seq }
        } catch let error as RemoteError where error.kind == .notFound {
            return false
        }
    }
}
