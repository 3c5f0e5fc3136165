import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// What `prune` did.
public struct PruneReport: Equatable, Sendable {
    public var snapshot = ""
    public var segmentsDeleted = 0
    public var snapshotsDeleted = 0
    public var blobsDeleted = 0
    /// Unreferenced blobs seen, waiting out the grace period before they go.
    public var blobsMarked = 0
}

extension Syncer {
    /// Writes a snapshot, then deletes what no device needs any more: segments every device
    /// (as its head says) has merged and the snapshot covers, and older snapshots. A device
    /// offline across a prune loses nothing: its head still says how far it got, and nothing
    /// past that goes; a device without a head that finds a segment gone starts from the
    /// snapshot. Attachments that neither the snapshot nor a remaining segment names (uploads
    /// whose push never finished) are collected in two phases: marked by one prune, deleted by
    /// a later one once `collectionGrace` has passed and they are still unnamed — without
    /// server timestamps, a blob another device uploaded a moment ago looks exactly like
    /// garbage, so it gets time to be named. (A push checks an upload it never confirmed is
    /// still there before naming it.) Attachments of deleted media stay: the snapshot names
    /// them. Call after a sync, so this device's state is current.
    public func prune(progress: ((String) -> Void)? = nil) throws -> PruneReport {
        var report = PruneReport()
        let me = store.deviceID
        report.snapshot = try writeSnapshot()
        let covered = try store.syncLogs()
        // How far every device with a head has merged each log.
        var limit: [String: Int] = covered.mapValues(\.seq)
        for (device, seqs) in try readHeads() {
            guard let newest = seqs.max() else { continue }
            let path = Self.headsFolder + "/" + Head(device: device, seq: newest).name
            let merged: [String: JSONValue]
            do {
                let plain = try repository.box.open(try backend.getData(path), path: path)
                guard let text = String(data: plain, encoding: .utf8), let o = try JSONValue.parse(text).object,
                      let m = o["merged"]?.object else { return report }  // an older head: prune nothing
                merged = m
            } catch {
                return report  // an unreadable head: be safe, prune nothing
            }
            for log in Set(limit.keys) {
                let seen = log == device ? newest : Int(merged[log]?.number ?? 0)
                limit[log] = min(limit[log] ?? 0, seen)
            }
        }
        // Segments at or below every limit.
        for (log, upTo) in limit.sorted(by: { $0.key < $1.key }) where upTo > 0 {
            for entry in (try? backend.list("log/" + log)) ?? [] {
                guard let seq = Int(entry.name), seq <= upTo else { continue }
                progress?("pruning log/\(log)/\(entry.name)")
                try? backend.delete("log/\(log)/\(entry.name)")
                report.segmentsDeleted += 1
            }
        }
        // Older snapshots: the one just written covers them.
        let newest = Snapshot.path(device: me, seq: covered[me]?.seq ?? 0)
        for snapshot in try Snapshot.list(backend) where Snapshot.path(device: snapshot.device, seq: snapshot.seq) != newest {
            try? backend.delete(Snapshot.path(device: snapshot.device, seq: snapshot.seq))
            report.snapshotsDeleted += 1
        }
        try collectBlobs(keepingSegmentsAbove: limit, into: &report, progress: progress)
        return report
    }

    /// Where prune keeps the unreferenced blobs it saw and when it first saw them.
    static let candidatesPath = "gc/candidates"

    private func collectBlobs(keepingSegmentsAbove limit: [String: Int], into report: inout PruneReport,
                              progress: ((String) -> Void)?) throws {
        var referenced = Set(try store.remoteBlobMap().values)
        // A fresh listing, not the one the segment limits came from: segments pushed while
        // this prune ran name blobs too.
        for (device, seqs) in try readHeads() {
            let from = (limit[device] ?? 0) + 1
            guard let newest = seqs.max(), from <= newest else { continue }
            for seq in from...newest {
                let path = Segment.path(device: device, seq: seq)
                guard let sealed = try? backend.getData(path), let plain = try? repository.box.open(sealed, path: path),
                      let segment = try? Segment.decode(plain, path: path) else { return }  // unsure: collect nothing
                referenced.formUnion(segment.blobs.values)
            }
        }
        var stored: [String] = []
        for folder in (try? backend.list("blobs")) ?? [] where folder.isFolder {
            guard let names = try? backend.list("blobs/" + folder.name) else { return }
            stored += names.filter { !$0.isFolder }.map(\.name)
        }
        // The marks of earlier prunes, in this device's clock (milliseconds).
        var marks: [String: Double] = [:]
        if let sealed = try? backend.getData(Self.candidatesPath),
           let plain = try? repository.box.open(sealed, path: Self.candidatesPath),
           let text = String(data: plain, encoding: .utf8), let o = try? JSONValue.parse(text).object {
            for (blob, time) in o { if let ms = time.number { marks[blob] = ms } }
        }
        let now = Date().timeIntervalSince1970 * 1000
        var kept: [String: JSONValue] = [:]
        for blob in stored where !referenced.contains(blob) {
            if let marked = marks[blob], now - marked >= collectionGrace * 1000 {
                progress?("collecting blobs/\(blob.prefix(2))/\(blob)")
                try? backend.delete(Repository.blobPath(blob))
                report.blobsDeleted += 1
            } else {
                kept[blob] = .number(marks[blob] ?? now)
                report.blobsMarked += 1
            }
        }
        let body = Data(JSONWriter.value(.object(kept)).utf8)
        try backend.putData(Self.candidatesPath, try repository.box.seal(body, path: Self.candidatesPath))
    }
}
