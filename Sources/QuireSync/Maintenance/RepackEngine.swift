import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// Moves the attachments still needed out of packs that are mostly garbage (as `restic
/// prune` repacks), so the space of the deleted ones can be given back. Which packs go is a
/// `RepackPlan`. The live attachments are read from this store's `blobs/`, encrypted anew
/// into new packs of this device (so the server cannot match old bytes to new and learn where
/// one attachment ends), and their new locations, a generation higher, are announced in a
/// segment of this device's log with no field changes. Only after that does this store take
/// them. The old pack is then garbage for prune's collection, which collects it in its two
/// phases: once every device has merged the announcement, none still points at it (locations
/// converge: `Store.setRemoteBlobs`).
///
/// Interrupted after uploading, the new packs are unnamed garbage and nothing moved; after
/// the announcement's head, the next pull takes the locations from this device's own log.
/// Two devices repacking the same pack keep the same copy in the end.
final class RepackEngine {
    private let context: SyncContext
    private var store: Store { context.store }
    private var backend: Backend { context.backend }
    private let progress: ((String) -> Void)?
    /// The server's body limit, as this store knows it (lowered when a pack is refused).
    private var bodyLimit: Int64?

    init(_ context: SyncContext, progress: ((String) -> Void)?) {
        self.context = context
        self.progress = progress
    }

    /// Repacks; returns how many packs were emptied of live attachments.
    func run() throws -> Int {
        bodyLimit = try store.remoteSettings()?.maxObjectSize
        let plan = RepackPlan(live: try liveLocations(), sizes: try packSizes(), held: { [store] in store.hasBlob($0) },
                              budget: RepackPlan.budget(bodyLimit: bodyLimit))
        guard !plan.moving.isEmpty else { return 0 }
        let moved = try upload(plan.moving)
        context.checkpoint(.repackUploaded)
        try announce(moved)
        return plan.packs.count
    }

    /// Where each attachment this store needs is packed (those in packs only).
    private func liveLocations() throws -> [String: (id: String, location: BlobLocation)] {
        try store.neededBlobLocations(confirmedOnly: true).compactMapValues { blob in
            BlobLocation(text: blob.location).map { (blob.remote, $0) }
        }
    }

    /// Every pack on the server with the size the listing gives (packs without one are left).
    private func packSizes() throws -> [(pack: String, size: Int64)] {
        var sizes: [(pack: String, size: Int64)] = []
        for folder in (try? backend.list(Pack.folder)) ?? [] where folder.isFolder {
            for entry in try backend.list(Pack.folder + "/" + folder.name) where !entry.isFolder {
                let path = Pack.folder + "/" + folder.name + "/" + entry.name
                if Pack.isValidPath(path), let size = entry.size, size > 0 { sizes.append((path, size)) }
            }
        }
        return sizes
    }

    /// Uploads `moving` into new packs; returns each attachment's new location (a generation
    /// above the old one), recording nothing.
    private func upload(_ moving: [String: RepackPlan.Moving]) throws -> [String: RemoteBlob] {
        let blobs = moving.keys.sorted().map { local in
            (local: local, remote: moving[local]?.remote ?? "", size: store.blobs.size(of: local) ?? 0)
        }
        var limit = bodyLimit ?? .max
        while true {
            guard let plan = PackPlan(blobs, limit: limit) else {
                throw SyncError(.tooLarge, detail: "the server's body limit (\(ByteCount.text(limit))) is too small for Quire")
            }
            let transfer = progress.map { TransferProgress("repacking", report: $0) }
            transfer?.expect(objects: plan.packs.count, bytes: plan.packs.reduce(0) { $0 + $1.padded })
            let uploader = PackUploader(backends: context.uploadConnections(), keys: context.repository.keys, device: store.deviceID,
                                        blobPath: { [blobs = store.blobs] in blobs.path(for: $0) })
            uploader.isCancelled = context.isCancelled
            var extents: [String: [Int: BlobLocation.Extent]] = [:]
            var moved: [String: RemoteBlob] = [:]
            do {
                try uploader.run(plan.packs, progress: { transfer?.advance(bytes: $0) }) { index, path in
                    var offset: Int64 = 0
                    for piece in plan.packs[index].pieces {
                        extents[piece.local, default: [:]][piece.part] = BlobLocation.Extent(pack: path, offset: offset, length: piece.sealed)
                        offset += piece.sealed
                        guard let parts = extents[piece.local], parts.count == piece.parts else { continue }
                        let generation = (moving[piece.local]?.location.generation ?? 0) + 1
                        moved[piece.local] = RemoteBlob(id: piece.remote, location: BlobLocation(
                            extents: (0..<piece.parts).compactMap { parts[$0] }, generation: generation))
                    }
                    transfer?.advance(objects: 1)
                }
                return moved
            } catch let refused as PackUploader.TooLarge {
                limit = try BlobUploads(context: context).learnLimit(from: refused)
            }
        }
    }

    /// Publishes the new locations as the next segment of this device's log, with its head,
    /// and only then records them here.
    private func announce(_ moved: [String: RemoteBlob]) throws {
        let me = store.deviceID
        let (seq, hash) = try store.syncLog(me) ?? (0, "")
        var segment = LogSegment(device: me, seq: seq + 1, previous: hash, changes: [], blobs: moved.mapValues(\.id))
        segment.packed = Dictionary(moved.values.compactMap { b in b.location.map { (b.id, $0) } }, uniquingKeysWith: { a, _ in a })
        let published = try LogWriter(context: context).publish(segment, progress: progress)
        let heads = Heads(context: context)
        try heads.publish(seq: segment.seq, previous: try heads.read()[me] ?? [])
        context.checkpoint(.repackAnnounced)
        try store.setRemoteBlobs(moved.map { ($0.key, $0.value.id, $0.value.location?.text) }, confirmed: true)
        try store.setSyncLog(me, seq: segment.seq, hash: published)
    }
}
