import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// Uploading attachments in packs for a push or a repack: which the server lacks, the packs
/// they go in, the server's body limit learned from a refusal, the repository moved to this
/// Quire's format first.
struct BlobUploads {
    let context: SyncContext
    private var store: Store { context.store }

    /// The smallest body limit Quire fits its objects to: below it a voice note would take
    /// tens of thousands of requests, and no server worth syncing with is set that low.
    static let smallestObjectLimit: Int64 = 128 << 10

    /// The repository blob of every local blob in `blobs`, uploading in packs those the
    /// server lacks, and returning once they are stored.
    /// Returns where each lives (with those of `known`), and how many attachments were uploaded.
    func upload(_ blobs: [String], known: [String: RemoteBlob],
                progress: TransferProgress?) throws -> (located: [String: RemoteBlob], uploaded: Int) {
        while true {
            do {
                let (located, packs) = try start(blobs, known: known, over: context.uploadConnections(), progress: progress)
                try packs?.finish()
                return (located, packs?.uploaded ?? 0)
            } catch let refused as PackUploader.TooLarge {
                _ = try learnLimit(from: refused)
            }
        }
    }

    /// The server's body limit after it refused a body: every object is fitted to half of
    /// what it refused (or of the limit known, if smaller), and that is remembered, so no
    /// later push meets the refusal again.
    /// - Throws: `.tooLarge` when that would go below `smallestObjectLimit`.
    func learnLimit(from refused: PackUploader.TooLarge) throws -> Int64 {
        let known = try store.remoteSettings()?.maxObjectSize ?? .max
        let learned = min(known, refused.size) / 2
        guard learned >= Self.smallestObjectLimit else { throw SyncError.bodyLimit(refused.size, refused.error) }
        try store.setMaxObjectSize(learned)
        return learned
    }

    /// The repository id and size of each local blob; the id comes from the SHA-256 the
    /// store named the blob by, so nothing is read but the files' sizes.
    func remoteIDs(of blobs: [String]) throws -> [(local: String, remote: String, size: Int64)] {
        try blobs.map { blob in (blob, try context.repository.packedID(ofLocal: blob), store.blobs.size(of: blob) ?? 0) }
    }

    /// Before the first push of this Quire to a repository of an older format: the repository
    /// moves to this Quire's format (packs, compressed segments), so a Quire too old to read
    /// what follows refuses it ("upgrade Quire") rather than misreading it. Once per store
    /// and repository; later pushes cost no request.
    func moveRepositoryForward() throws {
        let repository = context.repository
        if try store.knownFormat(of: repository.id) ?? 0 < Repository.format {
            try repository.moveForward()
            try store.setKnownFormat(Repository.format, of: repository.id)
        }
        context.writesCompressed = true
    }

    /// Once per store and repository: this device's pack folder is made (later pushes cost
    /// no request for it).
    func preparePackFolder() throws {
        let repository = context.repository
        guard try !store.madePackFolder(in: repository.id) else { return }
        try repository.moveForward()
        try context.backend.makeFolder(Pack.folder + "/" + store.deviceID)
        try store.setMadePackFolder(in: repository.id)
    }

    /// Starts uploading, in packs, the blobs of `blobs` the server lacks, and puts in `map`
    /// where each will live once they are stored; nil when nothing needs uploading. A blob a
    /// published segment named since this store last needed it is on the server; one known
    /// but unconfirmed (an upload whose push never finished, or a blob named anew after
    /// nothing here needed it) may have been collected since, and is uploaded again unless
    /// the server has it. A large attachment resumes from the parts an earlier push left.
    /// The packs go over `connections`, one thread each.
    /// Returns where every blob of `blobs` lives or will (with those of `known`), and the
    /// packs under way (their `uploaded` counts the attachments stored).
    func start(_ blobs: [String], known: [String: RemoteBlob], over connections: [Backend],
               progress: TransferProgress?) throws -> (located: [String: RemoteBlob], packs: PackUpload?) {
        var map = known
        var unknown: [String] = []
        // Unconfirmed blobs of one pack (a first sync that died) are checked with one request
        // for the pack, not one each.
        var checked: [String: Bool] = [:]
        for blob in blobs where map[blob] == nil {
            if let known = try store.remoteBlobRecord(blob) {
                let remote = RemoteBlob(id: known.id, location: BlobLocation(text: known.location))
                if try known.confirmed || context.repository.has(remote, checked: &checked) {
                    map[blob] = remote
                    continue
                }
            }
            unknown.append(blob)
        }
        let missing = try remoteIDs(of: unknown)
        guard !missing.isEmpty else { return (map, nil) }
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
                    guard try context.repository.hasObject(extent.pack) else { continue }
                    stored[piece.local, default: [:]][part] = extent
                }
            }
            if stored[piece.local]?[piece.part] == nil { jobs.append(pack) }
        }
        // Largest first, so the upload does not end on one connection sending a large pack
        // while the others are idle.
        jobs.sort { $0.padded > $1.padded }
        let uploader = PackUploader(backends: connections, keys: context.repository.keys, device: store.deviceID,
                                    blobPath: { [blobs = store.blobs] in blobs.path(for: $0) })
        uploader.chunkSealed = context.repository.uploadChunk
        uploader.isCancelled = context.isCancelled
        let packs = PackUpload(context, uploader: uploader, jobs: jobs, paths: uploader.newPaths(jobs.count), partSize: plan.partSize,
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
        try packs.record(resumedWhole)
        progress?.expect(objects: jobs.count, bytes: jobs.reduce(0) { $0 + $1.padded })
        uploader.start(jobs, to: packs.paths)
        return (map, packs)
    }
}

extension Store {
    /// Every pack holding part of an attachment this journal needs.
    func neededPacks() throws -> [String] {
        try neededBlobLocations().values.flatMap { BlobLocation(text: $0.location)?.extents.map(\.pack) ?? [] }
    }
}
