import Foundation
import QuireRemote
import QuireStore

/// Puts back what the server acknowledged and then lost, from this store: a server's 2xx is
/// not durability (SeaweedFS lost an object it had answered 200 for, and its bucket, in a
/// power cut a second later; a disk comes back from an older backup). This device holds
/// everything it sent: its segments as sealed (`Store.sentSegment`), so the very same bytes
/// go back under the very same names and every device's chain stays whole; the attachments
/// it needs, so a lost pack is made again under its name, each piece where it was
/// (`PackRebuild`), and every location naming it stays good.
///
/// `sync` runs it when the listing it reads anyway shows this device's own head gone or
/// behind (free to notice: the head is the last thing a push writes, so a server that lost
/// the newest writes lost it too), and once a day looks at this device's log and packs
/// (two listings); `verify --repair` runs it whole, for every pack whose attachments this
/// store holds. Nothing here is taken from the server, so a server that hides objects on
/// purpose gains nothing: it gets them again.
final class RepairEngine {
    private let context: SyncContext
    private var store: Store { context.store }
    private var backend: Backend { context.backend }
    private let progress: ((String) -> Void)?
    /// Objects put back so far (segments, heads, packs, a covering snapshot).
    private(set) var repaired = 0

    init(_ context: SyncContext, progress: ((String) -> Void)?) {
        self.context = context
        self.progress = progress
    }

    /// True when `heads` does not show this device's log as far as this store pushed it.
    static func ownHeadIsBehind(_ heads: [String: [Int]], store: Store) throws -> Bool {
        let pushed = try store.syncLog(store.deviceID)?.seq ?? 0
        return pushed > 0 && (heads[store.deviceID]?.max() ?? 0) < pushed
    }

    /// This device's log: every segment above those a prune took that the server lacks, from
    /// the copy kept when it was sealed, then the head. A segment with no copy (pushed by a
    /// Quire before copies were kept) cannot come back as it was; a snapshot of this store,
    /// which covers it, is written instead, so a device that lacks it starts from there.
    /// Returns whether anything was missing.
    @discardableResult
    func repairOwnLog(heads: [String: [Int]]) throws -> Bool {
        let me = store.deviceID
        guard let pushed = try store.syncLog(me)?.seq, pushed > 0 else { return false }
        let folder = LogSegment.folder + "/" + me
        // Each segment there with its size: a server that lost power before it flushed may
        // show a name whose bytes are gone (a file closed, never synced, comes back empty).
        var sizes: [Int: Int64] = [:]
        do {
            for entry in try backend.list(folder) where !entry.isFolder {
                if let seq = Int(entry.name) { sizes[seq] = entry.size ?? -1 }
            }
        } catch let error as RemoteError where error.kind == .notFound {
            try backend.makeFolder(folder)
        }
        let present = Set(sizes.keys)
        // Below the oldest segment still there, a prune took them (it keeps every device's
        // newest, and writes a snapshot first): without a snapshot, nothing was pruned.
        var floor = present.min() ?? 0
        if floor > 1 {
            if try Snapshot.list(backend).isEmpty {
                floor = 0
            } else {
                try store.forgetSentSegments(try store.sentSegmentNumbers().filter { $0 < floor })
            }
        }
        var uncovered = false
        for seq in stride(from: max(1, floor), through: pushed, by: 1) {
            let sealed = try store.sentSegment(seq)
            let size = sizes[seq]
            // There whole (a server that gives no sizes is taken at its word).
            if let size, size < 0 || sealed.map({ Int64($0.count) == size }) ?? true { continue }
            guard let sealed else { uncovered = true; continue }
            let path = LogSegment.path(device: me, seq: seq)
            progress?("putting back \(path)")
            if size == nil {
                do {
                    try backend.publishData(path, sealed)
                } catch let error as RemoteError where error.kind == .exists {
                    // Back already (another run of this repair).
                }
            } else {
                try backend.putData(path, sealed)  // its name only this device writes; its bytes are wrong
            }
            repaired += 1
        }
        if uncovered {
            progress?("writing a snapshot that covers what cannot be put back")
            try Snapshots(context: context).write()
            repaired += 1
        }
        let headBehind = (heads[me]?.max() ?? 0) < pushed
        if headBehind {
            try Heads(context: context).publish(seq: pushed, previous: heads[me] ?? [])
            repaired += 1
        }
        return repaired > 0 || headBehind
    }

    /// Packs holding attachments this store needs that the server lacks, this device's own
    /// (`onlyOwn`) or every device's: each is made again under its own name (`PackRebuild`),
    /// so every location naming it stays good. Returns the attachments that could not be
    /// put back (this store lacks them), by pack.
    @discardableResult
    func repairPacks(onlyOwn: Bool) throws -> [String: [String]] {
        let mine = Pack.folder + "/" + store.deviceID + "/"
        var locations: [String: (remote: String, location: BlobLocation)] = [:]
        var referenced = Set<String>()
        for (local, blob) in try store.neededBlobLocations(confirmedOnly: true) {
            guard let location = BlobLocation(text: blob.location) else { continue }
            locations[local] = (blob.remote, location)
            for extent in location.extents where !onlyOwn || extent.pack.hasPrefix(mine) { referenced.insert(extent.pack) }
        }
        // Where each pack's needed bytes end: a pack listed shorter lost its bytes.
        var needed: [String: Int64] = [:]
        for (_, blob) in locations {
            for extent in blob.location.extents where referenced.contains(extent.pack) {
                needed[extent.pack] = max(needed[extent.pack] ?? 0, extent.offset + extent.length)
            }
        }
        var listed: [String: [String: Int64]] = [:]
        let missing = referenced.sorted().filter { pack in
            let folder = String(pack[..<(pack.lastIndex(of: "/") ?? pack.endIndex)])
            if listed[folder] == nil {
                listed[folder] = Dictionary(((try? backend.list(folder)) ?? []).map { (folder + "/" + $0.name, $0.size ?? -1) }) { a, _ in a }
            }
            guard let size = listed[folder]?[pack] else { return true }
            return size >= 0 && size < (needed[pack] ?? 0)
        }
        var lacking: [String: [String]] = [:]
        for pack in missing {
            try context.stopIfCancelled()
            let rebuild = PackRebuild(pack: pack, locations: locations, held: { [store] in store.hasBlob($0) })
            if !rebuild.unrecoverable.isEmpty { lacking[pack] = rebuild.unrecoverable }
            guard rebuild.spans.contains(where: { $0.piece != nil }) else { continue }
            progress?("putting back \(pack)")
            let source = PackSource(rebuild.stretches, size: rebuild.size, keys: context.repository.keys,
                                    path: { [blobs = store.blobs] in blobs.path(for: $0) })
            let folder = String(pack[..<(pack.lastIndex(of: "/") ?? pack.endIndex)])
            if listed[folder]?[pack] != nil {
                try backend.put(pack, from: source)  // there, but short: its bytes are gone
            } else {
                do {
                    try backend.makeFolder(folder)
                    try backend.publish(pack, from: source)
                } catch let error as RemoteError where error.kind == .exists {
                    // Put back already (by its own device, or another run).
                }
            }
            repaired += 1
        }
        return lacking
    }
}

extension RepairEngine {
    /// Within a sync, before anything is pulled: puts back this device's lost objects when
    /// the listing shows its head gone or behind, or when the daily look is due. Returns the
    /// heads as they now are, and how many objects went back.
    static func runIfNeeded(_ context: SyncContext, heads: [String: [Int]],
                            progress: ((String) -> Void)?) throws -> (heads: [String: [Int]], repaired: Int) {
        let store = context.store
        let behind = try ownHeadIsBehind(heads, store: store)
        guard try behind || store.selfCheckIsDue(now: Date()) else { return (heads, 0) }
        let repair = RepairEngine(context, progress: progress)
        try repair.repairOwnLog(heads: heads)
        try repair.repairPacks(onlyOwn: true)
        try store.recordSelfCheck(at: Date())
        guard repair.repaired > 0 else { return (heads, 0) }
        var now = heads
        now[store.deviceID] = [try store.syncLog(store.deviceID)?.seq ?? 0]
        return (now, repair.repaired)
    }
}
