import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// What `prune` did.
public struct PruneReport: Equatable, Sendable {
    public var snapshot = ""
    public var segmentsDeleted = 0
    public var snapshotsDeleted = 0
}

extension Syncer {
    /// Writes a snapshot, then deletes what no device needs any more: segments every device
    /// (as its head says) has merged and the snapshot covers, and older snapshots. A device
    /// offline across a prune loses nothing: its head still says how far it got, and nothing
    /// past that goes; a device without a head that finds a segment gone starts from the
    /// snapshot. Attachments are not collected: without server timestamps, a blob uploaded by
    /// another device whose segment is not published yet looks exactly like garbage.
    /// Call after a sync, so this device's state is current.
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
        return report
    }
}
