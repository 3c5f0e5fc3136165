-- An entry's search row gathers its attachments' transcripts in the order the entry shows
-- its attachments (place, then id), and its tags in name order, not in the order this
-- store happened to take them in. Two devices that attached a voice note to the same
-- entry at once give both the same place, and each held them in the order it merged them:
-- their rows (and what a search shows of the transcripts) differed.

DROP VIEW search_source;

CREATE VIEW search_source AS
SELECT e.rowid AS rowid, e.id AS id, e.title AS title, quire_plain(e.body) AS body,
       coalesce((SELECT group_concat(transcript, char(10))
                 FROM (SELECT m.transcript FROM media m
                       WHERE m.entry_id = e.id AND m.deleted = 0 AND m.transcript <> ''
                       ORDER BY m.position, m.id)), '') AS transcripts,
       trim(coalesce((SELECT group_concat(tag, ' ')
                      FROM (SELECT t.tag FROM entry_tags t WHERE t.entry_id = e.id ORDER BY t.tag)), '') || ' '
            || coalesce((SELECT j.name FROM journals j WHERE j.id = e.journal_id), '')) AS tags,
       coalesce(e.place, '') AS place
FROM entries e
WHERE e.deleted = 0;

-- Only the rows of entries with two transcripts or more can change.
CREATE TEMP TABLE reordered AS
SELECT e.rowid AS rowid FROM entries e
WHERE e.deleted = 0
  AND (SELECT count(*) FROM media m WHERE m.entry_id = e.id AND m.deleted = 0 AND m.transcript <> '') > 1;
DELETE FROM search WHERE rowid IN (SELECT rowid FROM temp.reordered);
INSERT INTO search(rowid, title, body, transcripts, tags, place)
SELECT rowid, title, body, transcripts, tags, place FROM search_source WHERE rowid IN (SELECT rowid FROM temp.reordered);
DROP TABLE temp.reordered;
