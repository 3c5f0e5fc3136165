-- The journal's records. Every synced field of a record has one row in field_clocks
-- carrying the hybrid logical clock and device of its last write (DESIGN.md, "Store").
-- Migrations are never edited once shipped; the file stem is the permanent id.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE journals (
    id      TEXT PRIMARY KEY,          -- derived from the name, so two devices agree on it
    name    TEXT NOT NULL,
    deleted INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX journals_by_name ON journals(name);

CREATE TABLE entries (
    id         TEXT PRIMARY KEY,
    journal_id TEXT NOT NULL REFERENCES journals(id) DEFERRABLE INITIALLY DEFERRED,
    title      TEXT NOT NULL DEFAULT '',
    body       TEXT NOT NULL DEFAULT '',
    created    TEXT NOT NULL,          -- RFC 3339 with the original UTC offset, as written
    created_us INTEGER NOT NULL,       -- the same instant in microseconds since 1970 UTC
    modified   TEXT NOT NULL,
    starred    INTEGER NOT NULL DEFAULT 0,
    latitude   REAL,
    longitude  REAL,
    place      TEXT,
    deleted    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX entries_by_created ON entries(created_us, id);
CREATE INDEX entries_by_journal ON entries(journal_id);

CREATE TABLE entry_tags (
    entry_id TEXT NOT NULL REFERENCES entries(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    tag      TEXT NOT NULL,
    PRIMARY KEY (entry_id, tag)
) WITHOUT ROWID;
CREATE INDEX entry_tags_by_tag ON entry_tags(tag);

-- Attachment bytes live in blobs/ named by their SHA-256; this table knows their sizes.
CREATE TABLE blobs (
    id   TEXT PRIMARY KEY,
    size INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE media (
    id         TEXT PRIMARY KEY,
    entry_id   TEXT NOT NULL REFERENCES entries(id) DEFERRABLE INITIALLY DEFERRED,
    position   INTEGER NOT NULL DEFAULT 0,
    kind       TEXT NOT NULL CHECK (kind IN ('voice', 'photo', 'video', 'file')),
    blob_id    TEXT NOT NULL REFERENCES blobs(id) DEFERRABLE INITIALLY DEFERRED,
    filename   TEXT NOT NULL DEFAULT '',
    mime       TEXT NOT NULL DEFAULT '',
    duration   REAL,
    transcript TEXT NOT NULL DEFAULT '',
    segments   TEXT NOT NULL DEFAULT '[]',   -- canonical JSON: [{"start","end","text"}]
    deleted    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX media_by_entry ON media(entry_id, position);
CREATE INDEX media_by_blob ON media(blob_id);

-- Devices that wrote to this journal, numbered locally so each clock row stays small.
CREATE TABLE devices (
    num INTEGER PRIMARY KEY,
    id  TEXT NOT NULL UNIQUE                 -- the device's UUID
);

-- The synced state: for each field of each record, the clock of its last write.
-- hlc = milliseconds since 1970 << 16 | logical counter.
CREATE TABLE field_clocks (
    record    TEXT NOT NULL,               -- 'journal' | 'entry' | 'media'
    record_id TEXT NOT NULL,
    field     TEXT NOT NULL,
    hlc       INTEGER NOT NULL,
    device    INTEGER NOT NULL,            -- devices.num
    PRIMARY KEY (record, record_id, field)
) WITHOUT ROWID;

-- Concurrent writes that lost on a text field, kept rather than dropped (`quire conflicts`).
CREATE TABLE revisions (
    record    TEXT NOT NULL,
    record_id TEXT NOT NULL,
    field     TEXT NOT NULL,
    value     TEXT NOT NULL,
    hlc       INTEGER NOT NULL,
    device    INTEGER NOT NULL REFERENCES devices(num),
    PRIMARY KEY (record, record_id, field, hlc, device)
) WITHOUT ROWID;
