import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// Writes a snapshot, then deletes what no device needs any more: segments every device (as
/// its head says) has merged and the snapshot covers, and older snapshots. A device offline
/// across a prune loses nothing: its head still says how far it got, and nothing past that
/// goes; a device without a head that finds a segment gone starts from the snapshot.
///
/// Attachments that neither this store's live records nor a remaining segment name (those of
/// deleted records and entries, and uploads whose push never finished) are collected in two
/// phases: marked by one prune, deleted by a later one once `SyncOptions.collectionGrace` has
/// passed, they are still unnamed, and every device with a head has merged as far as this
/// store had when it marked them — without server timestamps, a blob another device uploaded
/// a moment ago looks exactly like garbage, so it gets time to be named. (A push checks on
/// the server a blob it never confirmed, or names anew, before naming it.) This store's own
/// unneeded files go too. Packs mostly garbage are repacked first (`RepackEngine`), so their
/// live attachments' new locations are in the snapshot. What may go is a `PrunePlan`.
final class PruneEngine {
    /// Where prune keeps the unreferenced blobs it saw, when it first saw them and how far
    /// its store had merged every log then.
    static let candidatesPath = "gc/candidates"

    private let context: SyncContext
    private var store: Store { context.store }
    private var backend: Backend { context.backend }
    private let progress: ((String) -> Void)?
    /// What this prune did so far.
    private(set) var report = PruneReport()
    /// How far each log may be pruned (`PrunePlan.limits`).
    private var limit: [String: Int] = [:]

    init(_ context: SyncContext, progress: ((String) -> Void)?) {
        self.context = context
        self.progress = progress
    }

    func run() throws -> PruneReport {
        report.oldVersionsKept = backend.oldVersionsKept
        report.packsRepacked = try RepackEngine(context, progress: progress).run()
        report.snapshot = try Snapshots(context: context).write()
        let heads = try Heads(context: context).read()
        guard let limit = try PrunePlan.limits(covered: try store.syncLogs().mapValues(\.seq), heads: otherHeads(heads)) else {
            return report
        }
        self.limit = limit
        try deleteSegments(keeping: heads.mapValues { $0.max() ?? 0 }.merging([store.deviceID: try store.syncLog(store.deviceID)?.seq ?? 0]) { max($0, $1) })
        try deleteOlderSnapshots()
        try collectBlobs()
        report.localFilesRemoved = try store.collectUnneededBlobFiles()
        return report
    }

    /// Every other device's newest head, with the positions it says it merged: nil for an
    /// older head (no positions), an unreadable one or a newer Quire's. (This device's own
    /// head may lag: it is written only when a push has something to say. Its store has
    /// merged what `store.syncLogs` says, which is where the limits start.)
    private func otherHeads(_ heads: [String: [Int]]) -> [(device: String, seq: Int, path: String, merged: [String: JSONValue]?)] {
        heads.compactMap { device, seqs in
            guard device != store.deviceID, let newest = seqs.max() else { return nil }
            let path = Heads.path(device: device, seq: newest)
            return (device, newest, path, mergedPositions(device: device, seq: newest, head: path))
        }
    }

    /// How far a device had merged the other logs when it wrote segment `seq`: from that
    /// segment, which says so since heads are names only, or from the sealed head of a Quire
    /// before that. Nil when neither can be read or says.
    private func mergedPositions(device: String, seq: Int, head: String) -> [String: JSONValue]? {
        let box = context.repository.box
        if let sealed = try? backend.getData(head), !sealed.isEmpty {
            return try? WireFormat.head.decode(try box.open(sealed, path: head), path: head)["merged"]?.object
        }
        let path = LogSegment.path(device: device, seq: seq)
        guard let sealed = try? backend.getData(path), let plain = try? box.open(sealed, path: path) else { return nil }
        return (try? LogSegment.decode(plain, path: path))?.merged
    }

    /// Segments at or below every limit, but for each device's newest (`newest`, by its head):
    /// that one says how far the device merged the others, which the next prune reads.
    /// This device's copies of its own pruned segments go too: the snapshot covers them.
    private func deleteSegments(keeping newest: [String: Int]) throws {
        for (log, upTo) in limit.sorted(by: { $0.key < $1.key }) where upTo > 0 {
            for entry in (try? backend.list("log/" + log)) ?? [] {
                guard let seq = Int(entry.name), seq <= upTo, seq != newest[log] else { continue }
                progress?("pruning log/\(log)/\(entry.name)")
                try? backend.delete("log/\(log)/\(entry.name)")
                report.segmentsDeleted += 1
            }
            if log == store.deviceID { try store.forgetSentSegments(try store.sentSegmentNumbers().filter { $0 <= upTo && $0 != newest[log] }) }
        }
    }

    /// Older snapshots: the one just written covers them.
    private func deleteOlderSnapshots() throws {
        for snapshot in try Snapshot.list(backend) where Snapshot.path(device: snapshot.device, seq: snapshot.seq) != report.snapshot {
            try? backend.delete(Snapshot.path(device: snapshot.device, seq: snapshot.seq))
            report.snapshotsDeleted += 1
        }
    }

    /// Marks the unreferenced blobs and packs, and collects those whose mark says they may go.
    private func collectBlobs() throws {
        guard let referenced = try referencedObjects(), let stored = storedObjects() else { return }  // unsure: collect nothing
        let plan = PrunePlan.collection(stored: stored, referenced: referenced, marks: readMarks(), limit: limit,
                                        positions: try store.syncLogs().mapValues(\.seq),
                                        now: Date().timeIntervalSince1970 * 1000, grace: context.options.collectionGrace * 1000)
        for blob in plan.delete {
            let object = Pack.isValidPath(blob) ? blob : Repository.blobPath(blob)
            progress?("collecting \(object)")
            try? backend.delete(object)
        }
        report.blobsDeleted += plan.delete.count
        report.blobsMarked += plan.kept.count
        let body = Data(JSONWriter.value(.object(plan.kept.mapValues(\.json))).utf8)
        try backend.putData(Self.candidatesPath, try context.repository.box.seal(body, path: Self.candidatesPath))
    }

    /// The blobs this store needs (uploaded, or about to be named by a push that did not
    /// finish) and the blobs and packs the segments above the limits name; nil when a segment
    /// cannot be read. A pack goes only when no attachment anything needs is in it (one partly
    /// garbage is kept whole). A fresh listing of the heads, not the one the limits came from:
    /// segments pushed while this prune ran name blobs too.
    private func referencedObjects() throws -> Set<String>? {
        var referenced = Set(try store.remoteBlobMap(neededOnly: true).values).union(try store.neededPacks())
        for (device, seqs) in try Heads(context: context).read() {
            let from = (limit[device] ?? 0) + 1
            guard let newest = seqs.max(), from <= newest else { continue }
            for seq in from...newest {
                let path = LogSegment.path(device: device, seq: seq)
                guard let sealed = try? backend.getData(path), let plain = try? context.repository.box.open(sealed, path: path),
                      let segment = try? LogSegment.decode(plain, path: path) else { return nil }
                referenced.formUnion(segment.blobs.values)
                for location in segment.packed.values { referenced.formUnion(location.extents.map(\.pack)) }
            }
        }
        return referenced
    }

    /// Every blob (by id) and pack (by path, `packs/<device>/<id>`) on the server; nil when a
    /// folder cannot be listed.
    private func storedObjects() -> [String]? {
        var stored: [String] = []
        for folder in (try? backend.list("blobs")) ?? [] where folder.isFolder {
            guard let names = try? backend.list("blobs/" + folder.name) else { return nil }
            stored += names.filter { !$0.isFolder }.map(\.name)
        }
        for folder in (try? backend.list(Pack.folder)) ?? [] where folder.isFolder {
            guard let names = try? backend.list(Pack.folder + "/" + folder.name) else { return nil }
            stored += names.filter { !$0.isFolder }.map { Pack.folder + "/" + folder.name + "/" + $0.name }.filter(Pack.isValidPath)
        }
        return stored
    }

    /// The marks of earlier prunes; none when there are none or they cannot be read.
    private func readMarks() -> [String: GCMark] {
        guard let sealed = try? backend.getData(Self.candidatesPath),
              let plain = try? context.repository.box.open(sealed, path: Self.candidatesPath),
              let text = String(data: plain, encoding: .utf8), let o = try? JSONValue.parse(text).object else { return [:] }
        return o.compactMapValues(GCMark.init(json:))
    }
}
