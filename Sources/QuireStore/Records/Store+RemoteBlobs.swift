/// A local attachment's copy on the server: its repository id, where its bytes are (a JSON
/// list of pack extents, nil for a blob object of its own) and whether a published segment or
/// snapshot names it.
public struct RemoteBlobRecord: Equatable, Sendable {
    public var id: String
    public var location: String?
    public var confirmed: Bool
}

/// A part of a large attachment already on the server.
public struct UploadedPart: Equatable, Sendable {
    public var part: Int
    public var pack: String
    public var offset: Int64
    public var length: Int64

    public init(part: Int, pack: String, offset: Int64, length: Int64) {
        self.part = part
        self.pack = pack
        self.offset = offset
        self.length = length
    }
}

extension Store {
    /// The server copy of local blob `blobID`, if it was uploaded or seen.
    public func remoteBlobRecord(_ blobID: String) throws -> RemoteBlobRecord? {
        try database.cached("SELECT remote_id, location, confirmed FROM remote_blobs WHERE blob_id = ?").first([.text(blobID)]) {
            RemoteBlobRecord(id: $0.text(0), location: $0.optionalText(1), confirmed: $0.int(2) != 0)
        }
    }

    /// Records where blobs live on the server, as segments or snapshots name them, or as an
    /// upload left them (`confirmed` false until a published segment names them). A known
    /// location is replaced only by another one, never by none.
    public func setRemoteBlobs(_ items: [(local: String, remote: String, location: String?)], confirmed: Bool) throws {
        guard !items.isEmpty else { return }
        try database.transaction {
            for item in items {
                try database.cached("""
                    INSERT INTO remote_blobs (blob_id, remote_id, confirmed, location) VALUES (?, ?, ?, ?)
                    ON CONFLICT(blob_id) DO UPDATE SET remote_id = excluded.remote_id,
                        confirmed = max(confirmed, excluded.confirmed), location = coalesce(excluded.location, location)
                    """).run([.text(item.local), .text(item.remote), SQLValue(confirmed), SQLValue(item.location)])
            }
        }
    }

    /// The parts of `blobID` cut at `partSize` that an earlier push uploaded.
    public func uploadedParts(of blobID: String, partSize: Int64) throws -> [Int: UploadedPart] {
        let rows = try database.cached("SELECT part, pack, offset, length FROM upload_parts WHERE blob_id = ? AND part_size = ?")
            .rows([.text(blobID), .integer(partSize)]) {
                UploadedPart(part: Int($0.int(0)), pack: $0.text(1), offset: $0.int(2), length: $0.int(3))
            }
        return Dictionary(rows.map { ($0.part, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Records a part as uploaded, in its own commit: a push killed after it resumes past it.
    public func recordUploadedPart(_ part: UploadedPart, of blobID: String, partSize: Int64) throws {
        try database.transaction {
            try database.cached("INSERT OR REPLACE INTO upload_parts (blob_id, part_size, part, pack, offset, length) VALUES (?, ?, ?, ?, ?, ?)")
                .run([.text(blobID), .integer(partSize), .integer(Int64(part.part)), .text(part.pack), .integer(part.offset), .integer(part.length)])
        }
    }

    /// Forgets the parts of blobs whose upload finished (their location is recorded).
    public func forgetUploadedParts(of blobIDs: [String]) throws {
        guard !blobIDs.isEmpty else { return }
        try database.transaction {
            for id in blobIDs { try database.cached("DELETE FROM upload_parts WHERE blob_id = ?").run([.text(id)]) }
        }
    }
}
