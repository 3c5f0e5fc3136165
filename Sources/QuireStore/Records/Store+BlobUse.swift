import Foundation

/// Which attachments the journal still needs (DESIGN.md, "Merge": blobs no record references
/// are collected). A blob is *needed* while a live media record of a live entry names it;
/// deleting the record or its entry — here or by a merge — frees it. A freed blob's file
/// goes from `blobs/` once the transaction that freed it commits; its row in `blobs` stays
/// (deleted media still name it, and a later record may name the same bytes again).
///
/// Naming a blob anew (a new attachment, a changed one, one that comes back with its entry)
/// withdraws its repository confirmation: while nothing here needed it, another device's
/// `prune` may have collected it, so the next push checks the server before naming it.
extension Store {
    /// Live media of live entries: the records whose blobs are needed.
    static let liveMedia = "media m JOIN entries e ON e.id = m.entry_id WHERE m.deleted = 0 AND e.deleted = 0"

    /// True when some live media record of a live entry names blob `id`.
    package func isBlobNeeded(_ id: String) throws -> Bool {
        try database.cached("SELECT 1 FROM \(Self.liveMedia) AND m.blob_id = ? LIMIT 1").first([.text(id)]) { _ in true } != nil
    }

    /// The blob media record `mediaID` needs, or nil when it or its entry is deleted.
    package func neededBlob(ofMedia mediaID: String) throws -> String? {
        try database.cached("SELECT m.blob_id FROM \(Self.liveMedia) AND m.id = ?").first([.text(mediaID)]) { $0.text(0) }
    }

    /// Repository ids of the blobs this store knows on the server but no longer needs: a
    /// `prune` may have collected them, so `verify` does not ask for them.
    package func unneededRemoteBlobs() throws -> Set<String> {
        var ids = Set<String>()
        try database.prepare("""
            SELECT r.remote_id FROM remote_blobs r
            WHERE NOT EXISTS (SELECT 1 FROM \(Self.liveMedia) AND m.blob_id = r.blob_id)
            """).forEach { ids.insert($0.text(0)) }
        return ids
    }

    /// Local blob ids that the live media among `changes` (or of entries whose deletion flag
    /// they set) need and whose files this store lacks. Call inside the merge's transaction,
    /// after the merge.
    package func neededBlobsLacking(after changes: [SyncChange]) throws -> [String] {
        var media = Set<String>(), entries = Set<String>()
        for change in changes {
            if change.record == .media { media.insert(change.recordID) }
            if change.record == .entry && change.isTombstone { entries.insert(change.recordID) }
        }
        var lacking = Set<String>()
        for id in media {
            if let blob = try neededBlob(ofMedia: id), blob != Writer.anchorBlob, !hasBlob(blob) { lacking.insert(blob) }
        }
        for id in entries {
            try database.cached("SELECT m.blob_id FROM \(Self.liveMedia) AND m.entry_id = ?").forEach([.text(id)]) {
                let blob = $0.text(0)
                if blob != Writer.anchorBlob && !hasBlob(blob) { lacking.insert(blob) }
            }
        }
        return lacking.sorted()
    }

    /// The blobs the journal needs whose files this store lacks, each with the repository id
    /// and location (JSON text, nil for a format-1 blob object) a segment or snapshot gave
    /// it. One no segment or snapshot named is not among them: nothing says where it is.
    package func lackingRemoteBlobs() throws -> [(local: String, remote: String, location: String?)] {
        var lacking: [(local: String, remote: String, location: String?)] = []
        try database.prepare("""
            SELECT r.blob_id, r.remote_id, r.location FROM remote_blobs r
            WHERE EXISTS (SELECT 1 FROM \(Self.liveMedia) AND m.blob_id = r.blob_id) ORDER BY r.blob_id
            """).forEach { row in
                let local = row.text(0)
                if local != Writer.anchorBlob && !hasBlob(local) { lacking.append((local, row.text(1), row.optionalText(2))) }
            }
        return lacking
    }

    /// Records a blob whose file is in `blobs/` (its size too, over the placeholder row a
    /// merged record may have made for it).
    func recordBlob(_ added: BlobStore.Added) throws {
        try database.cached("INSERT INTO blobs (id, size) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET size = excluded.size")
            .run([.text(added.id), .integer(added.size)])
    }

    /// Removes the files of `candidates` that nothing needs. Runs in its own write
    /// transaction, so no other writer can name one of them between the check and the unlink.
    func removeFreedBlobFiles(_ candidates: Set<String>) throws {
        guard !candidates.isEmpty else { return }
        try database.transaction {
            for blob in candidates.sorted() where blob != Writer.anchorBlob && blobs.contains(blob) {
                if try !isBlobNeeded(blob) { blobs.remove(blob) }
            }
        }
    }

    /// Removes every blob file nothing needs (those a crash kept from going when they were
    /// freed, and those of stores written before blobs were collected), and temporary files
    /// older than a day (a crash's half downloads). Returns how many blob files went.
    @discardableResult
    package func collectUnneededBlobFiles() throws -> Int {
        blobs.removeStaleTemporaries(olderThan: 24 * 3600)
        var freed = Set<String>()
        try database.prepare("""
            SELECT b.id FROM blobs b WHERE NOT EXISTS (SELECT 1 FROM \(Self.liveMedia) AND m.blob_id = b.id)
            """).forEach { freed.insert($0.text(0)) }
        let present = freed.filter { blobs.contains($0) }
        try removeFreedBlobFiles(present)
        return present.filter { !blobs.contains($0) }.count
    }
}

extension Writer {
    /// Notes that blob `id` may no longer be needed: its file goes after commit if so.
    func mayFree(_ id: String?) {
        if let id, BlobStore.isValidID(id), id != Self.anchorBlob { freedBlobs.insert(id) }
    }

    /// Notes that every blob the media of entry `entryID` name may no longer be needed.
    func mayFreeBlobs(ofEntry entryID: String) throws {
        try database.cached("SELECT blob_id FROM media WHERE entry_id = ? AND deleted = 0").forEach([.text(entryID)]) { mayFree($0.text(0)) }
    }

    /// The blob media record `mediaID` names now (deleted or not).
    func blobOf(media mediaID: String) throws -> String? {
        try database.cached("SELECT blob_id FROM media WHERE id = ?").first([.text(mediaID)]) { $0.text(0) }
    }

    /// Withdraws the repository confirmation of blob `id` (see the extension on Store).
    func nameAnew(_ id: String) throws {
        try database.cached("UPDATE remote_blobs SET confirmed = 0 WHERE blob_id = ? AND confirmed = 1").run([.text(id)])
    }

    /// A `blobs` row for a blob a merged record names, so the record can point at it before
    /// (or without) its bytes: a deleted record's blob is never fetched. When the file is
    /// here already (a crash between taking a download in and recording it), its size.
    func ensureBlobRow(_ id: String) throws {
        var info = stat()
        let size = stat(store.blobs.path(for: id), &info) == 0 ? Int64(info.st_size) : 0
        try database.cached("INSERT OR IGNORE INTO blobs (id, size) VALUES (?, ?)").run([.text(id), .integer(size)])
    }
}
