import Foundation

/// The pull side of sync: how far each device's log is merged, downloaded attachments taken
/// in, and the merge itself.
extension Store {
    /// How far this store merged device `device`'s log: (last segment, its hash).
    package func syncLog(_ device: String) throws -> (seq: Int, hash: String)? {
        try database.cached("SELECT seq, hash FROM sync_logs WHERE device = ?").first([.text(device)]) { (Int($0.int(0)), $0.text(1)) }
    }

    /// Every device log this store has merged or pushed.
    package func syncLogs() throws -> [String: (seq: Int, hash: String)] {
        var logs: [String: (seq: Int, hash: String)] = [:]
        try database.prepare("SELECT device, seq, hash FROM sync_logs").forEach { logs[$0.text(0)] = (Int($0.int(1)), $0.text(2)) }
        return logs
    }

    package func setSyncLog(_ device: String, seq: Int, hash: String) throws {
        try database.transaction { try writeSyncLog(device, seq: seq, hash: hash) }
    }

    func writeSyncLog(_ device: String, seq: Int, hash: String) throws {
        try database.cached("INSERT INTO sync_logs (device, seq, hash) VALUES (?, ?, ?) ON CONFLICT(device) DO UPDATE SET seq = excluded.seq, hash = excluded.hash")
            .run([.text(device), .integer(Int64(seq)), .text(hash)])
    }

    /// Marks blobs as named by a published segment.
    package func confirmRemoteBlobs(_ blobIDs: [String]) throws {
        guard !blobIDs.isEmpty else { return }
        try database.transaction {
            for id in blobIDs { try database.cached("UPDATE remote_blobs SET confirmed = 1 WHERE blob_id = ?").run([.text(id)]) }
        }
    }

    /// Moves a downloaded file into `blobs/` if its SHA-256 is `expected`.
    /// - Throws: `.invalid` when the bytes are not what the change log promised.
    func adoptBlob(fileAt path: String, expected: String) throws {
        let added = try blobs.adopt(fileAt: path)
        guard added.id == expected else {
            if added.isNew { blobs.remove(added.id) }
            throw StoreError(.invalid, path: path, detail: "attachment content does not match its id \(expected.prefix(12))")
        }
        try database.transaction {
            try recordBlob(added)
        }
    }

    /// Above this many folders to flush, one `syncfs` flushes them all.
    static let folderSyncLimit = 4

    /// Takes downloaded attachments into the store in one go: each file (already written and
    /// fsynced, its bytes authenticated as `id`) is renamed into `blobs/`, every folder that
    /// gained a name is flushed once, and then one transaction records them all with their
    /// repository ids. One at a time this cost a folder fsync and two commits per attachment.
    /// With `flushed` false the files' data is flushed first, all at once.
    package func adoptDownloadedBlobs(_ items: [DownloadedBlob], flushed: Bool = true) throws {
        guard !items.isEmpty else { return }
        if !flushed { try FileIO.syncFilesystem(of: blobs.root) }
        var added: [(BlobStore.Added, String)] = []
        var folders = Set<String>()
        for item in items {
            guard BlobStore.isValidID(item.id) else { throw StoreError(.invalid, path: item.path, detail: "not a blob id") }
            let blob = try blobs.adopt(fileAt: item.path, sha256: item.id, syncFolder: false)
            if blob.isNew { folders.insert(blobs.folder(of: blob.id)) }
            added.append((blob, item.remoteID))
        }
        // The new names made durable before the commit that records them: a folder fsync
        // each costs about as much as one `syncfs`, and a restore's batches name dozens.
        if folders.count > Self.folderSyncLimit {
            try FileIO.syncFilesystem(of: blobs.root)
        } else {
            for folder in folders.sorted() { FileIO.syncFolder(folder) }
            if !folders.isEmpty { FileIO.syncFolder(blobs.root) }
        }
        try database.transaction {
            for (blob, remote) in added {
                try recordBlob(blob)
                try database.cached("""
                    INSERT INTO remote_blobs (blob_id, remote_id, confirmed) VALUES (?, ?, 1)
                    ON CONFLICT(blob_id) DO UPDATE SET remote_id = excluded.remote_id, confirmed = 1
                    """).run([.text(blob.id), .text(remote)])
            }
        }
    }

    package func hasBlob(_ id: String) -> Bool { BlobStore.isValidID(id) && blobs.contains(id) }

    /// Merges consecutive segments of device log `device`, in one transaction together with
    /// the log position the last one reaches: all of it or none. Several segments to a
    /// transaction write the pages they share once (a restore's clocks and rows, keyed by
    /// random ids, touch most of their B-trees in every segment).
    /// The merge is a join — commutative, associative, idempotent — so order, duplicates and
    /// replays never change the result.
    /// - Returns: how many fields changed here and how many conflicts were kept.
    /// - Throws: `.malformed` naming (as its path) the segment whose value the store refuses.
    @discardableResult
    package func merge(_ segments: [LogChanges], log device: String, beforeCommit: () throws -> Void = {}) throws -> MergeResult {
        guard let last = segments.last else { return MergeResult() }
        return try write { writer in
            var total = MergeResult()
            for segment in segments {
                do {
                    let result = try writer.merge(segment.changes)
                    total.applied += result.applied
                    total.conflicts += result.conflicts
                    if segment.seq != last.seq { try writer.sendRestoredRowsSoFar() }
                } catch var error as StoreError where error.kind == .malformed {
                    error.path = segment.name
                    throw error
                }
            }
            try writeSyncLog(device, seq: last.seq, hash: last.hash)
            try beforeCommit()
            return total
        }
    }

    /// Merges without recording a log position (snapshots, tests). `beforeCommit` may still
    /// refuse the result by throwing (it runs inside the transaction).
    @discardableResult
    package func merge(_ changes: [SyncChange], beforeCommit: () throws -> Void = {}) throws -> MergeResult {
        try write { writer in
            let result = try writer.merge(changes)
            try beforeCommit()
            return result
        }
    }
}

/// One segment of a device's log to merge: its changes, its number and the hash of its
/// sealed bytes (the log position merging it reaches), and its name for errors.
package struct LogChanges: Sendable {
    package var changes: [SyncChange]
    package var seq: Int
    package var hash: String
    package var name: String

    package init(changes: [SyncChange], seq: Int, hash: String, name: String) {
        self.changes = changes
        self.seq = seq
        self.hash = hash
        self.name = name
    }
}

package struct MergeResult: Equatable, Sendable {
    package var applied = 0
    package var conflicts = 0
    package init() {}
}

/// An attachment downloaded into a temporary file inside the store: its SHA-256 (`id`: the
/// bytes were authenticated and hashed as they were written, and are those), and its
/// repository id. Only a download that checked the hash makes one: the store renames the
/// file into place under `id` without reading it again.
package struct DownloadedBlob: Sendable {
    package var path: String
    package var id: String
    package var remoteID: String

    package init(path: String, id: String, remoteID: String) {
        self.path = path
        self.id = id
        self.remoteID = remoteID
    }
}
