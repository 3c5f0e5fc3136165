import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

extension Syncer {
    /// The smallest body limit Quire fits its objects to: below it a voice note would take
    /// tens of thousands of requests, and no server worth syncing with is set that low.
    static let smallestObjectLimit: Int64 = 128 << 10

    /// The repository blob of every local blob in `blobs`, uploading in packs those the
    /// server lacks, and returning once they are stored.
    func upload(_ blobs: [String], into map: inout [String: RemoteBlob], report: inout SyncReport,
                progress: TransferProgress?) throws {
        while true {
            var attempt = map
            do {
                if let packs = try startUpload(blobs, into: &attempt, over: uploadConnections(), report: &report, progress: progress) {
                    try finishUpload(packs, report: &report)
                }
                map = attempt
                return
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
        try blobs.map { blob in (blob, try repository.packedID(ofLocal: blob), store.blobs.size(of: blob) ?? 0) }
    }

    /// Before the first push of this Quire to a repository of an older format: the repository
    /// moves to this Quire's format (packs, compressed segments), so a Quire too old to read
    /// what follows refuses it ("upgrade Quire") rather than misreading it. Once per store
    /// and repository; later pushes cost no request.
    func moveRepositoryForward() throws {
        if try store.knownFormat(of: repository.id) ?? 0 < Repository.format {
            try repository.moveForward()
            try store.setKnownFormat(Repository.format, of: repository.id)
        }
        writesCompressed = true
    }

    /// Once per store and repository: this device's pack folder is made (later pushes cost
    /// no request for it).
    func preparePackFolder() throws {
        guard try !store.madePackFolder(in: repository.id) else { return }
        try repository.moveForward()
        try backend.makeFolder(Pack.folder + "/" + store.deviceID)
        try store.setMadePackFolder(in: repository.id)
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
