import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// How attachments a pull needs come into the store: carried inside a segment or snapshot,
/// downloaded in the background, or one by one; each batch adopted in one transaction.
/// Each step returns how many it took in.
struct BlobIntake {
    let context: SyncContext
    private var store: Store { context.store }

    /// Fetches the attachments segments name that this store lacks — through the background
    /// downloads when there are any, else one by one — and takes them in as one batch, in
    /// order up to the first that failed. One missing on the server is passed over: its
    /// record may be deleted by the time the segment is merged (another device's prune
    /// collects such blobs), and the merge refuses the segment if a live record needs it.
    /// Without `waiting` (a restore), only those the segments carry are taken in; the rest
    /// are asked for and left to download (`askForLacking`); but with `last` (the restore's
    /// last batch) every attachment lacking is asked for now, together, so they download while
    /// that batch merges.
    func fetchBlobs(of segments: [LogSegment], using prefetcher: BlobPrefetcher?, waiting: Bool = true, last: Bool = false) throws -> Int {
        var needed: [(local: String, remote: RemoteBlob)] = []
        var carried: [(local: String, remote: String, bytes: Data)] = []
        var known: [(local: String, remote: String, location: String?)] = []
        var seen = Set<String>()
        for segment in segments {
            for (local, remote) in segment.blobs.sorted(by: { $0.key < $1.key }) {
                guard BlobStore.isValidID(local), BlobStore.isValidID(remote) else {
                    throw SyncError(.damaged, object: LogSegment.path(device: segment.device, seq: segment.seq),
                                    detail: "an attachment has an invalid id")
                }
                // Where every named blob lives, kept: a push of this store that names it later
                // names it with its location, and never uploads it again.
                known.append((local, remote, segment.packed[remote]?.text))
                guard seen.insert(local).inserted, !store.hasBlob(local) else { continue }
                if let bytes = segment.inline[local] {
                    carried.append((local, remote, bytes))
                } else {
                    needed.append((local, RemoteBlob(id: remote, location: segment.packed[remote])))
                }
            }
        }
        try store.setRemoteBlobs(known, confirmed: true)
        // Asked for before the carried ones are written, so they download meanwhile (takeIn
        // asks again, which changes nothing).
        // Without waiting (a restore), small ones are left to the batch asked for at its end,
        // where they fill their packs' windows: asked for batch by batch, they downloaded
        // beside the merges but in sparse windows (bench/s3, 1 GiB set, RGW 30 ms away: 614
        // requests instead of 200, 8.0 s instead of 6.2, 1.015 of the payload on the wire).
        if let prefetcher {
            if waiting {
                prefetcher.request(needed)
            } else if last {
                prefetcher.request(try lacking() + needed)
            } else {
                prefetcher.request(needed.filter { !BlobPrefetcher.readsAlong($0.remote) })
            }
        }
        let fromSegments = try takeInCarried(carried)
        return try fromSegments + (waiting ? takeIn(needed, using: prefetcher, passingOverMissing: true) : 0)
    }

    /// Every attachment the journal needs and lacks, asked for from where the segments and
    /// snapshots merged said it is (downloads asked for earlier go on where they are): the
    /// end of a restore, whose merges did not wait for them. They download while the caller
    /// goes on (the restore builds its search index); `Lacking.takeIn` then takes them in.
    func askForLacking(using prefetcher: BlobPrefetcher?) throws -> Lacking {
        let lacking = try lacking()
        let started = prefetcher == nil && !lacking.isEmpty ? Downloads.prefetcher(context) : nil
        let downloads = prefetcher ?? started
        downloads?.request(lacking)
        return Lacking(intake: self, items: lacking, downloads: downloads, started: started)
    }

    /// The attachments the journal needs and lacks, with where the server keeps them.
    private func lacking() throws -> [(local: String, remote: RemoteBlob)] {
        try store.lackingRemoteBlobs().map {
            (local: $0.local, remote: RemoteBlob(id: $0.remote, location: BlobLocation(text: $0.location)))
        }
    }

    /// Attachments asked for by `askForLacking`, downloading.
    struct Lacking {
        fileprivate let intake: BlobIntake
        fileprivate let items: [(local: String, remote: RemoteBlob)]
        fileprivate let downloads: BlobPrefetcher?
        /// Started for these alone: closed once they are in (or on failure).
        fileprivate let started: BlobPrefetcher?

        /// Takes them in; one missing on the server is an error: a live record needs it.
        func takeIn() throws -> Int {
            defer { started?.close() }
            guard !items.isEmpty else { return 0 }
            return try intake.takeIn(items, using: downloads)
        }

        /// Stops downloads started for these alone (the restore failed before `takeIn`).
        func cancel() { started?.close() }
    }

    /// Takes attachments a segment carried inline into the store: written to temporary files,
    /// then taken in as one batch.
    func takeInCarried(_ carried: [(local: String, remote: String, bytes: Data)]) throws -> Int {
        var written: [DownloadedBlob] = []
        defer { for blob in written { unlink(blob.path) } }  // gone once adopted; left over only after an error
        for item in carried {
            try Self.checkCarried(item.bytes, local: item.local, object: item.remote)
            let temp = try store.blobs.temporaryPath()
            written.append(DownloadedBlob(path: temp, id: item.local, remoteID: item.remote))
            try FileIO.writeNewFile(temp, item.bytes)
        }
        return try takeInWritten(written)
    }

    /// Bytes a segment or snapshot carried must be the attachment it names them as.
    /// - Throws: `SyncError.damaged` naming `object` when they are not.
    static func checkCarried(_ bytes: Data, local: String, object: String) throws {
        guard SHA256.hex(of: bytes) == local else {
            throw SyncError(.damaged, object: object, detail: "an attachment it carries is not the bytes its id \(local.prefix(12)) names")
        }
    }

    /// Takes attachments written (not yet flushed) to temporary files in the store in: their
    /// data flushed together, then adopted as one batch.
    func takeInWritten(_ written: [DownloadedBlob]) throws -> Int {
        guard !written.isEmpty else { return 0 }
        for _ in written { context.checkpoint(.blobDownloaded) }
        try store.adoptDownloadedBlobs(written, flushed: false)
        return written.count
    }

    /// Inside a merge's transaction: refuses it when a live attachment it touched lacks its
    /// blob although `map` names it (missing on the server). One the map does not name is let
    /// be: while logs are replayed, a record can be live here for a moment that was not live
    /// for the segment's writer (its entry deleted there, still a placeholder here), and the
    /// segment or snapshot that makes it live for good names its blob.
    func checkAttachments(after changes: [SyncChange], remote: (String) -> RemoteBlob?) throws {
        for lacking in try store.neededBlobsLacking(after: changes) {
            guard let blob = remote(lacking) else { continue }
            throw SyncError(.missing, object: blob.object, detail: "an attachment is missing on the server")
        }
    }

    /// Takes attachments `needed` into the store — from the background downloads when there
    /// are any, else downloading them one by one here — as one batch. One missing on the
    /// server does not keep the others out: they are taken in, and the first missing one's
    /// error is thrown at the end (with `passingOverMissing`, missing ones are skipped). Any
    /// other failure stops the batch there, what came before it taken in, and is thrown.
    func takeIn(_ needed: [(local: String, remote: RemoteBlob)], using prefetcher: BlobPrefetcher?,
                passingOverMissing: Bool = false) throws -> Int {
        func isMissing(_ error: Error) -> Bool { (error as? SyncError)?.kind == .missing }
        var missing: Error?
        guard let prefetcher, !needed.isEmpty else {
            var downloaded = 0
            for item in needed {
                do {
                    try downloadBlob(local: item.local, remote: item.remote)
                    downloaded += 1
                } catch where isMissing(error) {
                    if !passingOverMissing && missing == nil { missing = error }
                }
            }
            if let missing { throw missing }
            return downloaded
        }
        prefetcher.request(needed)
        var arrived: [DownloadedBlob] = []
        defer { for blob in arrived { unlink(blob.path) } }  // gone once adopted; left over only after an error
        var failure: Error?
        for item in needed {
            switch prefetcher.take(item.local, whileWaiting: { context.pullProgress?.refresh() }) {
            case .success(let temp):
                context.checkpoint(.blobDownloaded)
                arrived.append(DownloadedBlob(path: temp, id: item.local, remoteID: item.remote.id))
            case .failure(let error) where isMissing(error):
                if !passingOverMissing && missing == nil { missing = error }
            case .failure(let error):
                failure = error
            }
            if failure != nil { break }
        }
        try store.adoptDownloadedBlobs(arrived)
        if let failure = failure ?? missing { throw failure }
        return arrived.count
    }

    func downloadBlob(local: String, remote: RemoteBlob) throws {
        let temp = try store.blobs.temporaryPath()
        defer { unlink(temp) }
        do {
            try context.repository.download(remote, to: temp, sha256: local, meter: context.downloadMeter, held: context.heldPack)
        } catch let error as RemoteError where error.kind == .notFound {
            throw SyncError(.missing, object: remote.object, detail: "an attachment is missing on the server")
        }
        context.checkpoint(.blobDownloaded)
        try store.adoptDownloadedBlobs([DownloadedBlob(path: temp, id: local, remoteID: remote.id)])
    }
}
