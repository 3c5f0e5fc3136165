#!/usr/bin/env python3
"""Builds Fixtures/schema-NNNN.sqlite: a store exactly as Quire left it after migration NNNN,
with a little data, for the upgrade test. Run once when a new migration is added, for the
version before it, and commit the file; never regenerate an existing fixture.
Usage: make-schema-fixture.py VERSION   (e.g. 1)"""
import glob, os, sqlite3, sys

root = os.path.join(os.path.dirname(__file__), "..", "..", "..")
version = int(sys.argv[1])
migrations = sorted(glob.glob(os.path.join(root, "migrations", "*.sql")))[:version]
out = os.path.join(os.path.dirname(__file__), f"schema-{version:04d}.sqlite")
if os.path.exists(out):
    sys.exit(f"{out} exists: fixtures are never regenerated")
db = sqlite3.connect(out, isolation_level=None)
db.execute("PRAGMA journal_mode = DELETE")
for i, path in enumerate(migrations):
    stem = os.path.basename(path)[:-4]
    db.executescript(
        "BEGIN IMMEDIATE;"
        "CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied TEXT NOT NULL) WITHOUT ROWID;"
        + open(path, encoding="utf-8").read()
        + f";INSERT INTO schema_migrations VALUES ('{stem}', '2025-01-01T00:00:00Z');"
        + f"PRAGMA user_version = {i + 1}; COMMIT;")
db.executescript("""
INSERT INTO meta VALUES ('device_id', '11111111-2222-4333-8444-555555555555');
INSERT INTO devices (num, id) VALUES (1, '11111111-2222-4333-8444-555555555555');
INSERT INTO journals VALUES ('j1', 'Journal', 0);
INSERT INTO entries (id, journal_id, title, body, created, created_us, modified)
VALUES ('e1', 'j1', 'Старая запись', 'Тексты из прошлого 東京タワー', '2024-05-01T10:00:00+03:00', 1714546800000000, '2024-05-01T10:00:00+03:00');
INSERT INTO entry_tags VALUES ('e1', 'архив');
INSERT INTO blobs VALUES ('0000000000000000000000000000000000000000000000000000000000000000', 0);
INSERT INTO media (id, entry_id, kind, blob_id, filename, mime, transcript)
VALUES ('m1', 'e1', 'voice', '0000000000000000000000000000000000000000000000000000000000000000', 'a.m4a', 'audio/mp4', 'голосовая заметка о поездке');
INSERT INTO field_clocks VALUES ('entry', 'e1', 'title', 112368000000000000, 1);
""")
db.close()
print(out)
