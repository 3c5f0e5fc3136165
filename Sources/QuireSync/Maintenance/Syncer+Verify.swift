import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// One thing `verify` found wrong.
public struct VerifyProblem: Equatable, Sendable, CustomStringConvertible {
    public var object: String
    public var detail: String
    public var description: String { "\(object): \(detail)" }
}

/// What `verify` looked at.
public struct VerifyReport: Equatable, Sendable {
    public var devices = 0
    public var segments = 0
    public var blobs = 0
    public var blobsRead = 0
    public var problems: [VerifyProblem] = []
}

extension Syncer {
    /// Checks that every object the journal needs is present and authentic: each device's
    /// chain of segments from the first to its head, and every attachment they reference that
    /// this journal does not know to be unneeded (with `readData`, downloaded and decrypted in full).
    /// Never stops at the first problem.
    public func verify(readData: Bool, progress: ((String) -> Void)? = nil) throws -> VerifyReport {
        var report = VerifyReport()
        let heads = try readHeads()
        let logs = try store.syncLogs()
        if heads.isEmpty && !logs.isEmpty {
            report.problems.append(VerifyProblem(object: Self.headsFolder, detail: "no change logs at all, but this journal synced here before"))
        }
        for (device, seen) in logs where seen.seq > 0 {
            let newest = heads[device]?.max() ?? 0
            if newest < seen.seq {
                report.problems.append(VerifyProblem(object: "heads/\(device)",
                                                     detail: "rolled back: the server shows segment \(newest), this journal has seen \(seen.seq)"))
            }
        }
        var blobs: [String: (blob: RemoteBlob, referrer: String)] = [:]  // by remote id
        // A segment may name an attachment whose record this journal has since seen deleted:
        // a prune may have collected it, so it is not asked for.
        let unneeded = try store.unneededRemoteBlobs()
        // After a prune, each chain starts where the newest snapshot (checked in full) left it.
        var start: [String: (seq: Int, hash: String)] = [:]
        if let snapshot = try newestSnapshot() {
            progress?("checking \(Snapshot.path(device: snapshot.device, seq: snapshot.seq))")
            do {
                let found = try snapshotPositions(device: snapshot.device, seq: snapshot.seq)
                start = found.positions
                for blob in found.blobs { blobs[blob.id] = (blob, Snapshot.path(device: snapshot.device, seq: snapshot.seq)) }
            } catch let error as SyncError {
                report.problems.append(VerifyProblem(object: error.object ?? Snapshot.folder, detail: error.detail))
            }
        }
        for (device, seqs) in heads.sorted(by: { $0.key < $1.key }) {
            report.devices += 1
            var previous = ""
            var first = 1
            if let known = start[device], !(try segmentExists(device: device, seq: 1)) {
                (first, previous) = (known.seq + 1, known.hash)
            }
            guard first <= (seqs.max() ?? 0) else { continue }
            for seq in first...(seqs.max() ?? 0) {
                let path = LogSegment.path(device: device, seq: seq)
                progress?("checking \(path)")
                do {
                    let (segment, hash) = try fetchSegment(path: path, device: device, seq: seq, previous: previous)
                    previous = hash
                    report.segments += 1
                    for local in segment.blobs.keys {
                        guard let blob = segment.remote(local), blobs[blob.id] == nil, !unneeded.contains(blob.id) else { continue }
                        blobs[blob.id] = (blob, path)
                    }
                } catch let error as SyncError {
                    report.problems.append(VerifyProblem(object: error.object ?? path, detail: error.detail))
                    break  // the rest of this chain cannot be checked against a broken link
                }
            }
        }
        // Objects are looked for in their folders' listings, one listing per folder.
        var listings: [String: Set<String>] = [:]
        func present(_ object: String) -> Bool {
            let folder = parentFolder(object)
            if listings[folder] == nil { listings[folder] = Set(((try? backend.list(folder)) ?? []).map(\.name)) }
            return listings[folder]?.contains(String(object.split(separator: "/").last ?? "")) == true
        }
        let started = Date()
        // With `readData`, a pack holding more than one extent to check is downloaded whole,
        // once, and its extents are read from memory: blobs are taken pack by pack, so one
        // pack is held at a time.
        var extentsIn: [String: Int] = [:]
        for (blob, _) in blobs.values { for extent in blob.location?.extents ?? [] { extentsIn[extent.pack, default: 0] += 1 } }
        var held: (pack: String, bytes: Data)?
        func whole(_ pack: String) -> Repository.Window? {
            guard readData, (extentsIn[pack] ?? 0) > 1 else { return nil }
            if held?.pack != pack { held = (try? backend.getData(pack)).map { (pack, $0) } }
            return held?.pack == pack ? held.map { Repository.Window(bytes: $0.bytes, start: 0) } : nil
        }
        let order = blobs.sorted { ($0.value.blob.location?.extents.first?.pack ?? "", $0.key) < ($1.value.blob.location?.extents.first?.pack ?? "", $1.key) }
        for (id, (blob, referrer)) in order {
            try stopIfCancelled()
            report.blobs += 1
            progress?("\(readData ? "reading" : "checking") \(report.blobs)/\(blobs.count) attachments"
                      + (TransferProgress.timeLeft(since: started, done: Double(report.blobs - 1), of: Double(blobs.count)) ?? ""))
            let objects = blob.location.map { Array(Set($0.extents.map(\.pack))).sorted() } ?? [Repository.blobPath(id)]
            let lacking = objects.filter { !present($0) }
            guard lacking.isEmpty else {
                let what = blob.location == nil ? "missing" : "missing, with part of attachment \(id.prefix(16))"
                for object in lacking { report.problems.append(VerifyProblem(object: object, detail: "\(what) (referenced by \(referrer))")) }
                continue
            }
            guard readData else { continue }
            do {
                try repository.verify(blob, held: whole)
                report.blobsRead += 1
            } catch let error as CryptoError {
                report.problems.append(VerifyProblem(object: error.object ?? blob.object, detail: error.detail))
            } catch let error as RemoteError {
                report.problems.append(VerifyProblem(object: blob.object, detail: error.detail))
            }
        }
        return report
    }

    private func segmentExists(device: String, seq: Int) throws -> Bool {
        do {
            return try backend.list("log/" + device).contains { Int($0.name) == seq }
        } catch let error as RemoteError where error.kind == .notFound {
            return false
        }
    }

    private func parentFolder(_ object: String) -> String {
        guard let slash = object.lastIndex(of: "/") else { return "" }
        return String(object[..<slash])
    }
}
