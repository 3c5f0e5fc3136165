-- Names people give their machines (`quire device name laptop`), synced like any record
-- (record kind 'device', field 'name', last writer wins), so every machine shows a
-- conflict or a newest change as "laptop" rather than a UUID. One row per device UUID.
CREATE TABLE device_names (
    id   TEXT PRIMARY KEY,                 -- the device's UUID
    name TEXT NOT NULL DEFAULT ''
) WITHOUT ROWID;
