-- The ancestry of text fields (title, body, transcript): every write some later write names
-- as the one it replaced (its prev). A write of such a field is a conflict only while it is
-- a head: no write this store knows names it. The winner is still the greatest clock; this
-- only decides which losers `quire conflicts` lists, so a history A -> B -> C merged in any
-- order never shows A or B. Rows are only ever added (a join, like the rest of the merge).
CREATE TABLE superseded (
    record    TEXT NOT NULL,
    record_id TEXT NOT NULL,
    field     TEXT NOT NULL,
    hlc       INTEGER NOT NULL,
    device    INTEGER NOT NULL,
    PRIMARY KEY (record, record_id, field, hlc, device)
) WITHOUT ROWID;

-- What this store knows already: each text field's current write names its predecessor.
-- (Deeper ancestors were not kept before; a revision that is one stays listed until dismissed.)
INSERT OR IGNORE INTO superseded (record, record_id, field, hlc, device)
SELECT record, record_id, field, prev_hlc, prev_device FROM field_clocks
WHERE prev_hlc > 0 AND ((record = 'entry' AND field IN ('title', 'body')) OR (record = 'media' AND field = 'transcript'));

-- Revisions that are ancestors of what this store holds were never concurrent: not conflicts.
DELETE FROM revisions WHERE dismissed = 0 AND EXISTS (
    SELECT 1 FROM superseded s WHERE s.record = revisions.record AND s.record_id = revisions.record_id
        AND s.field = revisions.field AND s.hlc = revisions.hlc AND s.device = revisions.device);
