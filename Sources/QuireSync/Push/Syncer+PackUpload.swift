import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// Packs under way: their names are chosen before they upload, so where each attachment will
/// live is known at once (a push makes and sends the segments naming them meanwhile, and
/// publishes the head naming those only once the packs are stored: `PackUploader`,
/// invariant 2), and what each stored pack completes is recorded as it is.
final class PackUpload {
    let uploader: PackUploader
    let jobs: [PackPlan.Pack]
    let paths: [String]
    let partSize: Int64
    let progress: TransferProgress?
    /// The parts of each attachment stored so far, by part number.
    var stored: [String: [Int: BlobLocation.Extent]]
    /// The generation each attachment is recorded under.
    var generations: [String: Int] = [:]
    /// Attachments in parts that are complete (their part records go at the end).
    var complete: [String] = []

    init(uploader: PackUploader, jobs: [PackPlan.Pack], paths: [String], partSize: Int64,
         stored: [String: [Int: BlobLocation.Extent]], progress: TransferProgress?) {
        self.uploader = uploader
        self.jobs = jobs
        self.paths = paths
        self.partSize = partSize
        self.stored = stored
        self.progress = progress
    }

    /// Where each piece of pack `index` lies in it.
    func extents(of index: Int) -> [(piece: PackPlan.Piece, extent: BlobLocation.Extent)] {
        var offset: Int64 = 0
        return jobs[index].pieces.map { piece in
            defer { offset += piece.sealed }
            return (piece, BlobLocation.Extent(pack: paths[index], offset: offset, length: piece.sealed))
        }
    }
}

extension Syncer {
    /// Starts uploading, in packs, the blobs of `blobs` the server lacks, and puts in `map`
    /// where each will live once they are stored; nil when nothing needs uploading. A blob a
    /// published segment named since this store last needed it is on the server; one known
    /// but unconfirmed (an upload whose push never finished, or a blob named anew after
    /// nothing here needed it) may have been collected since, and is uploaded again unless
    /// the server has it. A large attachment resumes from the parts an earlier push left.
    /// The packs go over `connections`, one thread each.
    func startUpload(_ blobs: [String], into map: inout [String: RemoteBlob], over connections: [Backend],
                     report: inout SyncReport, progress: TransferProgress?) throws -> PackUpload? {
        var unknown: [String] = []
        // Unconfirmed blobs of one pack (a first sync that died) are checked with one request
        // for the pack, not one each.
        var checked: [String: Bool] = [:]
        for blob in blobs where map[blob] == nil {
            if let known = try store.remoteBlobRecord(blob) {
                let remote = RemoteBlob(id: known.id, location: BlobLocation(text: known.location))
                if try known.confirmed || repository.has(remote, checked: &checked) {
                    map[blob] = remote
                    continue
                }
            }
            unknown.append(blob)
        }
        let missing = try remoteIDs(of: unknown)
        guard !missing.isEmpty else { return nil }
        try preparePackFolder()
        let limit = try store.remoteSettings()?.maxObjectSize ?? .max
        guard let plan = PackPlan(missing, limit: limit) else {
            throw SyncError(.tooLarge, detail: "the server's body limit (\(ByteCount.text(limit))) is too small for Quire")
        }
        var stored: [String: [Int: BlobLocation.Extent]] = [:]
        var jobs: [PackPlan.Pack] = []
        var resumed = Set<String>()
        for pack in plan.packs {
            guard pack.pieces.count == 1, let piece = pack.pieces.first, piece.resumable else { jobs.append(pack); continue }
            if resumed.insert(piece.local).inserted {
                // Parts an earlier push stored, each checked still there (a prune a day later
                // may have collected a pack no segment named).
                for (part, done) in try store.uploadedParts(of: piece.local, partSize: plan.partSize) {
                    let extent = BlobLocation.Extent(pack: done.pack, offset: done.offset, length: done.length)
                    guard try repository.hasObject(extent.pack) else { continue }
                    stored[piece.local, default: [:]][part] = extent
                }
            }
            if stored[piece.local]?[piece.part] == nil { jobs.append(pack) }
        }
        // Largest first, so the upload does not end on one connection sending a large pack
        // while the others are idle.
        jobs.sort { $0.padded > $1.padded }
        let uploader = PackUploader(backends: connections, keys: repository.keys, device: store.deviceID,
                                    blobPath: { [blobs = store.blobs] in blobs.path(for: $0) })
        uploader.chunkSealed = repository.uploadChunk
        uploader.isCancelled = isCancelled
        let packs = PackUpload(uploader: uploader, jobs: jobs, paths: uploader.newPaths(jobs.count), partSize: plan.partSize,
                               stored: stored, progress: progress)
        var planned = stored
        for index in jobs.indices {
            for (piece, extent) in packs.extents(of: index) { planned[piece.local, default: [:]][piece.part] = extent }
        }
        let lastPieces = plan.packs.flatMap(\.pieces).reduce(into: [String: PackPlan.Piece]()) { $0[$1.local] = $1 }
        var resumedWhole: [PackPlan.Piece] = []
        for (blob, pieces) in lastPieces {
            // Uploaded anew where a location was known (its pack collected meanwhile): the
            // next generation, so devices that knew the old one take this one.
            let generation = try store.remoteBlobGeneration(blob).map { $0 + 1 } ?? 0
            packs.generations[blob] = generation
            let parts = planned[blob] ?? [:]
            map[blob] = RemoteBlob(id: pieces.remote, location: BlobLocation(extents: (0..<pieces.parts).compactMap { parts[$0] },
                                                                              generation: generation))
            if stored[blob]?.count == pieces.parts { resumedWhole.append(pieces) }
        }
        // Those whose every part an earlier push uploaded: recorded now, in one commit.
        try record(resumedWhole, in: packs, report: &report)
        progress?.expect(objects: jobs.count, bytes: jobs.reduce(0) { $0 + $1.padded })
        uploader.start(jobs, to: packs.paths)
        return packs
    }

    /// Records what the packs stored since the last call complete, without waiting.
    func collectUpload(_ packs: PackUpload, report: inout SyncReport) {
        packs.uploader.collect(progress: { packs.progress?.advance(bytes: $0) }) { try stored($0, of: packs, report: &report) }
    }

    /// Waits for every pack, recording each as it is stored.
    /// - Throws: the first failure (`PackUploader.TooLarge` when the server refused a pack).
    func finishUpload(_ packs: PackUpload, report: inout SyncReport) throws {
        try packs.uploader.finish(progress: { packs.progress?.advance(bytes: $0) }) { try stored($0, of: packs, report: &report) }
        try store.forgetUploadedParts(of: packs.complete)
    }

    /// Records what stored pack `index` holds, in one commit.
    private func stored(_ index: Int, of packs: PackUpload, report: inout SyncReport) throws {
        var parts: [(blob: String, part: UploadedPart)] = []
        var whole: [PackPlan.Piece] = []
        for (piece, extent) in packs.extents(of: index) {
            packs.stored[piece.local, default: [:]][piece.part] = extent
            if piece.resumable {
                parts.append((piece.local, UploadedPart(part: piece.part, pack: extent.pack, offset: extent.offset, length: extent.length)))
            }
            if packs.stored[piece.local]?.count == piece.parts { whole.append(piece) }
        }
        try record(whole, in: packs, parts: parts, report: &report)
        packs.progress?.advance(objects: 1)
        checkpoint(.packUploaded)
    }

    /// Records the parts just stored and where each attachment whose every part is stored
    /// lives (unconfirmed until a head names a segment naming it).
    private func record(_ whole: [PackPlan.Piece], in packs: PackUpload, parts: [(blob: String, part: UploadedPart)] = [],
                        report: inout SyncReport) throws {
        let located = whole.map { piece in
            let extents = packs.stored[piece.local] ?? [:]
            let location = BlobLocation(extents: (0..<piece.parts).compactMap { extents[$0] }, generation: packs.generations[piece.local] ?? 0)
            return (piece.local, piece.remote, Optional(location.text))
        }
        try store.recordStoredPack(parts: parts, partSize: packs.partSize, completing: located)
        report.blobsUploaded += whole.count
        packs.complete += whole.filter { $0.parts > 1 }.map(\.local)
    }
}
