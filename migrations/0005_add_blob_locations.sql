-- Repository format 2 packs attachments: a blob's "location" is where its encrypted bytes
-- live, as JSON [[pack, offset, length], ...], one extent per part; NULL for a blob that has
-- an object of its own (format 1).
ALTER TABLE remote_blobs ADD COLUMN location TEXT;

-- The parts of a large attachment a push has already uploaded, so that a push killed halfway
-- resumes from them. Rows are per part size: parts cut for another server limit are not reused.
CREATE TABLE upload_parts (
    blob_id TEXT NOT NULL,
    part_size INTEGER NOT NULL,
    part INTEGER NOT NULL,
    pack TEXT NOT NULL,
    offset INTEGER NOT NULL,
    length INTEGER NOT NULL,
    PRIMARY KEY (blob_id, part_size, part)
);
