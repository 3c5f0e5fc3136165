-- Sync state (DESIGN.md, "Remote repository" and "Merge").

-- The clock each write replaced, so a merge can tell an edit made on top of another
-- (sequential) from two edits made without seeing each other (concurrent: the loser of a
-- text field is kept as a revision).
ALTER TABLE field_clocks ADD COLUMN prev_hlc INTEGER NOT NULL DEFAULT 0;
ALTER TABLE field_clocks ADD COLUMN prev_device INTEGER NOT NULL DEFAULT 0;

-- Records with local changes not pushed yet; hlc is the newest such change.
CREATE TABLE outbox (
    record    TEXT NOT NULL,
    record_id TEXT NOT NULL,
    hlc       INTEGER NOT NULL,
    PRIMARY KEY (record, record_id)
) WITHOUT ROWID;

-- Everything written on this device before sync existed is still to be pushed.
INSERT INTO outbox (record, record_id, hlc)
SELECT c.record, c.record_id, max(c.hlc)
FROM field_clocks c JOIN devices d ON d.num = c.device JOIN meta m ON m.key = 'device_id' AND m.value = d.id
GROUP BY c.record, c.record_id;

-- How far this store has merged (or, for its own device, pushed) each device's change log.
CREATE TABLE sync_logs (
    device TEXT PRIMARY KEY,     -- the device's UUID
    seq    INTEGER NOT NULL,     -- the last segment merged
    hash   TEXT NOT NULL         -- that segment's hash, which the next one must name
) WITHOUT ROWID;

-- Local blob (SHA-256 of the bytes) to repository blob id (keyed BLAKE2b), once known.
CREATE TABLE remote_blobs (
    blob_id   TEXT PRIMARY KEY,
    remote_id TEXT NOT NULL
) WITHOUT ROWID;

-- SQLite 3.40's integrity_check misreads a WITHOUT ROWID table whose non-key column stands
-- between key columns ("NULL value in revisions.value" on a healthy row): rebuild
-- revisions with its key columns first.
CREATE TABLE revisions_keyed (
    record    TEXT NOT NULL,
    record_id TEXT NOT NULL,
    field     TEXT NOT NULL,
    hlc       INTEGER NOT NULL,
    device    INTEGER NOT NULL,
    value     TEXT NOT NULL,
    PRIMARY KEY (record, record_id, field, hlc, device)
) WITHOUT ROWID;
INSERT INTO revisions_keyed (record, record_id, field, hlc, device, value)
SELECT record, record_id, field, hlc, device, value FROM revisions;
DROP TABLE revisions;
ALTER TABLE revisions_keyed RENAME TO revisions;
