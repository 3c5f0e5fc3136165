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
    /// Files in this store's `blobs/` that nothing needed any more.
    public var localFilesRemoved = 0
    /// Packs mostly garbage whose live attachments moved to new packs (the old ones are
    /// then collected like any garbage).
    public var packsRepacked = 0
}

extension Syncer {
    /// Writes a snapshot, then deletes what no device needs any more: segments every device
    /// (as its head says) has merged and the snapshot covers, and older snapshots. A device
    /// offline across a prune loses nothing: its head still says how far it got, and nothing
    /// past that goes; a device without a head that finds a segment gone starts from the
    /// snapshot. Attachments that neither this store's live records nor a remaining segment
    /// name (those of deleted records and entries, and uploads whose push never finished) are
    /// collected in two phases: marked by one prune, deleted by a later one once
    /// `collectionGrace` has passed, they are still unnamed, and every device with a head has
    /// merged as far as this store had when it marked them — without server timestamps, a
    /// blob another device uploaded a moment ago looks exactly like garbage, so it gets time
    /// to be named. (A push checks on the server a blob it never confirmed, or names anew,
    /// before naming it.) This store's own unneeded files go too. Packs mostly garbage are
    /// repacked first (`repack`), so their live attachments' new locations are in the
    /// snapshot. Call after a sync, so this device's state is current.
    public func prune(progress: ((String) -> Void)? = nil) throws -> PruneReport {
        var report = PruneReport()
        let me = store.deviceID
        report.packsRepacked = try repack(progress: progress)
        report.snapshot = try writeSnapshot()
        let covered = try store.syncLogs()
        // (This device's own head may lag: it is written only when a push has something to
        // say. Its store has merged `covered`, which is where the limits start.)
        var heads: [(device: String, seq: Int, path: String, merged: [String: JSONValue]?)] = []
        for (device, seqs) in try readHeads() where device != me {
            guard let newest = seqs.max() else { continue }
            let path = Self.headsFolder + "/" + Head(device: device, seq: newest).name
            // An older head (no positions), an unreadable one or a newer Quire's: nil.
            let merged = try? WireFormat.head.decode(try repository.box.open(try backend.getData(path), path: path), path: path)["merged"]?.object
            heads.append((device, newest, path, merged))
        }
        // How far every device with a head has merged each log.
        guard let limit = try PrunePlan.limits(covered: covered.mapValues(\.seq), heads: heads) else { return report }
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
        for snapshot in try Snapshot.list(backend) where Snapshot.path(device: snapshot.device, seq: snapshot.seq) != report.snapshot {
            try? backend.delete(Snapshot.path(device: snapshot.device, seq: snapshot.seq))
            report.snapshotsDeleted += 1
        }
        try collectBlobs(keepingSegmentsAbove: limit, into: &report, progress: progress)
        report.localFilesRemoved = try store.collectUnneededBlobFiles()
        return report
    }

    /// Where prune keeps the unreferenced blobs it saw, when it first saw them and how far
    /// its store had merged every log then.
    static let candidatesPath = "gc/candidates"

    private func collectBlobs(keepingSegmentsAbove limit: [String: Int], into report: inout PruneReport,
                              progress: ((String) -> Void)?) throws {
        // What this store needs, uploaded or about to be named by a push that did not finish.
        var referenced = Set(try store.remoteBlobMap(neededOnly: true).values)
        // The packs holding them, and those the segments above the limits name: a pack goes
        // only when no attachment anything needs is in it (one partly garbage is kept whole).
        var packs = Set(try store.neededPacks())
        // A fresh listing, not the one the segment limits came from: segments pushed while
        // this prune ran name blobs too.
        for (device, seqs) in try readHeads() {
            let from = (limit[device] ?? 0) + 1
            guard let newest = seqs.max(), from <= newest else { continue }
            for seq in from...newest {
                let path = LogSegment.path(device: device, seq: seq)
                guard let sealed = try? backend.getData(path), let plain = try? repository.box.open(sealed, path: path),
                      let segment = try? LogSegment.decode(plain, path: path) else { return }  // unsure: collect nothing
                referenced.formUnion(segment.blobs.values)
                for location in segment.packed.values { packs.formUnion(location.extents.map(\.pack)) }
            }
        }
        var stored: [String] = []
        for folder in (try? backend.list("blobs")) ?? [] where folder.isFolder {
            guard let names = try? backend.list("blobs/" + folder.name) else { return }
            stored += names.filter { !$0.isFolder }.map(\.name)
        }
        // Packs are marked by their path (a blob by its id): `packs/<device>/<id>`.
        for folder in (try? backend.list(Pack.folder)) ?? [] where folder.isFolder {
            guard let names = try? backend.list(Pack.folder + "/" + folder.name) else { return }
            stored += names.filter { !$0.isFolder }.map { Pack.folder + "/" + folder.name + "/" + $0.name }.filter(Pack.isValidPath)
        }
        referenced.formUnion(packs)
        let plan = PrunePlan.collection(stored: stored, referenced: referenced, marks: readMarks(), limit: limit,
                                        positions: try store.syncLogs().mapValues(\.seq),
                                        now: Date().timeIntervalSince1970 * 1000, grace: collectionGrace * 1000)
        for blob in plan.delete {
            let object = Pack.isValidPath(blob) ? blob : Repository.blobPath(blob)
            progress?("collecting \(object)")
            try? backend.delete(object)
        }
        report.blobsDeleted += plan.delete.count
        report.blobsMarked += plan.kept.count
        let kept = plan.kept.mapValues(\.json)
        let body = Data(JSONWriter.value(.object(kept)).utf8)
        try backend.putData(Self.candidatesPath, try repository.box.seal(body, path: Self.candidatesPath))
    }

    /// The marks of earlier prunes; none when there are none or they cannot be read.
    private func readMarks() -> [String: GCMark] {
        guard let sealed = try? backend.getData(Self.candidatesPath),
              let plain = try? repository.box.open(sealed, path: Self.candidatesPath),
              let text = String(data: plain, encoding: .utf8), let o = try? JSONValue.parse(text).object else { return [:] }
        return o.compactMapValues(GCMark.init(json:))
    }
}

/// When a prune first saw a blob unneeded (this device's clock, milliseconds) and how far its
/// store had merged each device's log then. Written `[time, {log: seq}]`; a bare number (an
/// older Quire, which marked only uploads no segment ever named) carries no positions.
struct GCMark {
    var time: Double
    var positions: [String: Int]

    init(time: Double, positions: [String: Int]) {
        self.time = time
        self.positions = positions
    }

    init?(json: JSONValue) {
        if let time = json.number {
            self.init(time: time, positions: [:])
            return
        }
        guard let a = json.array, a.count == 2, let time = a[0].number, let p = a[1].object else { return nil }
        // A position that is not a segment number makes the mark unreadable: the blob is marked
        // anew (later), never collected early.
        let positions = p.compactMapValues { $0.integer }
        guard positions.count == p.count, time.isFinite else { return nil }
        self.init(time: time, positions: positions)
    }

    var json: JSONValue {
        .array([.number(time), .object(positions.mapValues { .number(Double($0)) })])
    }
}
