import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

extension Syncer {
    /// The smallest body limit Quire fits its objects to: below it a voice note would take
    /// tens of thousands of requests, and no server worth syncing with is set that low.
    static let smallestObjectLimit: Int64 = 128 << 10

    /// The repository blob of every local blob in `blobs`, uploading in packs those the
    /// server lacks. A blob a published segment named since this store last needed it is on
    /// the server; one known but unconfirmed (an upload whose push never finished, or a blob
    /// named anew after nothing here needed it) may have been collected since, and is
    /// uploaded again unless the server has it.
    func upload(_ blobs: [String], into map: inout [String: RemoteBlob], report: inout SyncReport,
                progress: TransferProgress?) throws {
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
        guard !missing.isEmpty else { return }
        try preparePackFolder()
        var limit = try store.remoteSettings()?.maxObjectSize ?? .max
        while true {
            do {
                try uploadPacked(missing.filter { map[$0.local] == nil }, limit: limit, into: &map, report: &report, progress: progress)
                return
            } catch let refused as PackUploader.TooLarge {
                limit = try learnLimit(from: refused)
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
    private func remoteIDs(of blobs: [String]) throws -> [(local: String, remote: String, size: Int64)] {
        try blobs.map { blob in (blob, try repository.packedID(ofLocal: blob), store.blobs.size(of: blob) ?? 0) }
    }

    /// Once per store and repository: the repository moves to the pack format and this
    /// device's pack folder is made (later pushes cost no request for either).
    private func preparePackFolder() throws {
        guard try !store.madePackFolder(in: repository.id) else { return }
        try repository.upgradeForPacks()
        try backend.makeFolder(Pack.folder + "/" + store.deviceID)
        try store.setMadePackFolder(in: repository.id)
    }

    /// Plans `blobs` into packs under `limit`, resumes any large attachment from parts an
    /// earlier push left, uploads the rest in parallel and records where each blob lives as
    /// soon as its last part is stored.
    private func uploadPacked(_ blobs: [(local: String, remote: String, size: Int64)], limit: Int64,
                              into map: inout [String: RemoteBlob], report: inout SyncReport, progress: TransferProgress?) throws {
        guard let plan = PackPlan(blobs, limit: limit) else {
            throw SyncError(.tooLarge, detail: "the server's body limit (\(ByteCount.text(limit))) is too small for Quire")
        }
        var extents: [String: [Int: BlobLocation.Extent]] = [:]
        var jobs: [PackPlan.Pack] = []
        var resumed = Set<String>()
        for pack in plan.packs {
            guard pack.pieces.count == 1, let piece = pack.pieces.first, piece.parts > 1 else { jobs.append(pack); continue }
            if resumed.insert(piece.local).inserted {
                // Parts an earlier push stored, each checked still there (a prune a day later
                // may have collected a pack no segment named).
                for (part, done) in try store.uploadedParts(of: piece.local, partSize: plan.partSize) {
                    let extent = BlobLocation.Extent(pack: done.pack, offset: done.offset, length: done.length)
                    guard try repository.hasObject(extent.pack) else { continue }
                    extents[piece.local, default: [:]][part] = extent
                }
            }
            if extents[piece.local]?[piece.part] == nil { jobs.append(pack) }
        }
        progress?.expect(objects: jobs.count, bytes: jobs.reduce(0) { $0 + $1.padded })
        let uploader = PackUploader(backends: uploadConnections(), keys: repository.keys, device: store.deviceID,
                                    blobPath: { [blobs = store.blobs] in blobs.path(for: $0) })
        uploader.chunkSealed = repository.uploadChunk
        uploader.isCancelled = isCancelled
        var complete: [String] = []
        func finish(_ piece: PackPlan.Piece) throws {
            guard extents[piece.local]?.count == piece.parts, let parts = extents[piece.local] else { return }
            // Uploaded anew where a location was known (its pack collected meanwhile): the
            // next generation, so devices that knew the old one take this one.
            let generation = try store.remoteBlobGeneration(piece.local).map { $0 + 1 } ?? 0
            let location = BlobLocation(extents: (0..<piece.parts).compactMap { parts[$0] }, generation: generation)
            try store.setRemoteBlobs([(piece.local, piece.remote, location.text)], confirmed: false)
            map[piece.local] = RemoteBlob(id: piece.remote, location: location)
            report.blobsUploaded += 1
            if piece.parts > 1 { complete.append(piece.local) }
        }
        // Blobs whose every part an earlier push uploaded.
        for pack in plan.packs where pack.pieces.count == 1 && pack.pieces[0].parts > 1 && pack.pieces[0].part == 0 {
            try finish(pack.pieces[0])
        }
        try uploader.run(jobs, progress: { progress?.advance(bytes: $0) }) { index, path in
            var offset: Int64 = 0
            for piece in jobs[index].pieces {
                let extent = BlobLocation.Extent(pack: path, offset: offset, length: piece.sealed)
                offset += piece.sealed
                extents[piece.local, default: [:]][piece.part] = extent
                if piece.parts > 1 {
                    // Its own commit: a push killed after this resumes past this part.
                    try store.recordUploadedPart(UploadedPart(part: piece.part, pack: path, offset: extent.offset, length: extent.length),
                                                 of: piece.local, partSize: plan.partSize)
                }
                try finish(piece)
            }
            progress?.advance(objects: 1)
            checkpoint("pack-uploaded")
        }
        try store.forgetUploadedParts(of: complete)
    }

    /// The connections uploads go over: the worker connections when there are some (each
    /// then used by one upload thread), else this sync's own.
    func uploadConnections() -> [Backend] {
        workerBackends.count >= 2 ? Array(workerBackends.prefix(8)) : [backend]
    }
}

extension Store {
    /// Every pack holding part of an attachment this journal needs.
    func neededPacks() throws -> [String] {
        try neededBlobLocations().values.flatMap { BlobLocation(text: $0.location)?.extents.map(\.pack) ?? [] }
    }
}
