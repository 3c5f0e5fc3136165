/// A local attachment's copy on the server: its repository id, where its bytes are (a JSON
/// list of pack extents, nil for a blob object of its own) and whether a published segment or
/// snapshot names it.
package struct RemoteBlobRecord: Equatable, Sendable {
    package var id: String
    package var location: String?
    package var confirmed: Bool
}

/// A part of a large attachment already on the server.
package struct UploadedPart: Equatable, Sendable {
    package var part: Int
    package var pack: String
    package var offset: Int64
    package var length: Int64

    package init(part: Int, pack: String, offset: Int64, length: Int64) {
        self.part = part
        self.pack = pack
        self.offset = offset
        self.length = length
    }
}

extension Store {
    /// The server copy of local blob `blobID`, if it was uploaded or seen.
    package func remoteBlobRecord(_ blobID: String) throws -> RemoteBlobRecord? {
        try database.cached("SELECT remote_id, location, confirmed FROM remote_blobs WHERE blob_id = ?").first([.text(blobID)]) {
            RemoteBlobRecord(id: $0.text(0), location: $0.optionalText(1), confirmed: $0.int(2) != 0)
        }
    }

    /// Records where blobs live on the server, as segments or snapshots name them, or as an
    /// upload or a repack left them (`confirmed` false until a published segment names them).
    ///
    /// A location is a register that converges: of two, the one with the higher generation
    /// (`"g"` in its JSON; 0 when absent) is kept, and between equal generations the greater
    /// text. Every device that has heard of the same locations keeps the same one, in
    /// whatever order it heard of them, which `prune` relies on: it collects a pack only when
    /// its own store's locations no longer name it and every device has merged as far as it
    /// had. A writer that moves an attachment (an upload after its pack was collected, a
    /// repack) gives the new location the next generation, so a stale one never wins.
    /// A known location is never replaced by none.
    package func setRemoteBlobs(_ items: [(local: String, remote: String, location: String?)], confirmed: Bool) throws {
        guard !items.isEmpty else { return }
        try database.transaction { try insertRemoteBlobs(items, confirmed: confirmed) }
    }

    /// Records what one stored pack holds, in one commit (one flush to disk, not one per
    /// attachment: a pack holds a thousand small ones): the parts of large attachments it
    /// holds, so a push killed after it resumes past them, and where each attachment it
    /// completes lives (`confirmed` false, as `setRemoteBlobs`).
    package func recordStoredPack(parts: [(blob: String, part: UploadedPart)], partSize: Int64,
                                 completing blobs: [(local: String, remote: String, location: String?)]) throws {
        guard !parts.isEmpty || !blobs.isEmpty else { return }
        try database.transaction {
            for (blob, part) in parts {
                try database.cached("INSERT OR REPLACE INTO upload_parts (blob_id, part_size, part, pack, offset, length) VALUES (?, ?, ?, ?, ?, ?)")
                    .run([.text(blob), .integer(partSize), .integer(Int64(part.part)), .text(part.pack), .integer(part.offset), .integer(part.length)])
            }
            try insertRemoteBlobs(blobs, confirmed: false)
        }
    }

    private func insertRemoteBlobs(_ items: [(local: String, remote: String, location: String?)], confirmed: Bool) throws {
        for item in items {
            try database.cached("""
                INSERT INTO remote_blobs (blob_id, remote_id, confirmed, location) VALUES (?, ?, ?, ?)
                ON CONFLICT(blob_id) DO UPDATE SET remote_id = excluded.remote_id,
                    confirmed = max(confirmed, excluded.confirmed),
                    location = CASE
                        WHEN excluded.location IS NULL THEN location
                        WHEN location IS NULL THEN excluded.location
                        WHEN (coalesce(json_extract(excluded.location, '$.g'), 0), excluded.location)
                             > (coalesce(json_extract(location, '$.g'), 0), location) THEN excluded.location
                        ELSE location END
                """).run([.text(item.local), .text(item.remote), SQLValue(confirmed), SQLValue(item.location)])
        }
    }

    /// Where each packed blob the journal needs lives on the server: local id → repository id
    /// and location (JSON text), in one query; with `confirmedOnly`, only those a published
    /// segment or snapshot names.
    package func neededBlobLocations(confirmedOnly: Bool = false) throws -> [String: (remote: String, location: String)] {
        var found: [String: (remote: String, location: String)] = [:]
        try database.prepare("""
            SELECT r.blob_id, r.remote_id, r.location FROM remote_blobs r
            WHERE r.location IS NOT NULL\(confirmedOnly ? " AND r.confirmed = 1" : "")
              AND EXISTS (SELECT 1 FROM \(Self.liveMedia) AND m.blob_id = r.blob_id)
            """).forEach { found[$0.text(0)] = ($0.text(1), $0.text(2)) }
        return found
    }

    /// The generation of the location recorded for `blobID` (see `setRemoteBlobs`), nil when
    /// none is.
    package func remoteBlobGeneration(_ blobID: String) throws -> Int? {
        try database.cached("SELECT coalesce(json_extract(location, '$.g'), 0) FROM remote_blobs WHERE blob_id = ? AND location IS NOT NULL")
            .first([.text(blobID)]) { Int($0.int(0)) }
    }

    /// The parts of `blobID` cut at `partSize` that an earlier push uploaded.
    package func uploadedParts(of blobID: String, partSize: Int64) throws -> [Int: UploadedPart] {
        let rows = try database.cached("SELECT part, pack, offset, length FROM upload_parts WHERE blob_id = ? AND part_size = ?")
            .rows([.text(blobID), .integer(partSize)]) {
                UploadedPart(part: Int($0.int(0)), pack: $0.text(1), offset: $0.int(2), length: $0.int(3))
            }
        return Dictionary(rows.map { ($0.part, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Forgets the parts of blobs whose upload finished (their location is recorded).
    package func forgetUploadedParts(of blobIDs: [String]) throws {
        guard !blobIDs.isEmpty else { return }
        try database.transaction {
            for id in blobIDs { try database.cached("DELETE FROM upload_parts WHERE blob_id = ?").run([.text(id)]) }
        }
    }
}
