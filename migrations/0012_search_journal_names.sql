-- Search finds an entry by its journal's name too (`quire search travel` finds the entries
-- of the journal Travel), indexed with the tags: the tags column holds the entry's tags and
-- then its journal's name.

DROP VIEW search_source;

CREATE VIEW search_source AS
SELECT e.rowid AS rowid, e.id AS id, e.title AS title, quire_plain(e.body) AS body,
       coalesce((SELECT group_concat(m.transcript, char(10)) FROM media m
                 WHERE m.entry_id = e.id AND m.deleted = 0 AND m.transcript <> ''), '') AS transcripts,
       trim(coalesce((SELECT group_concat(t.tag, ' ') FROM entry_tags t WHERE t.entry_id = e.id), '') || ' '
            || coalesce((SELECT j.name FROM journals j WHERE j.id = e.journal_id), '')) AS tags,
       coalesce(e.place, '') AS place
FROM entries e
WHERE e.deleted = 0;

DELETE FROM search;
INSERT INTO search(rowid, title, body, transcripts, tags, place)
SELECT rowid, title, body, transcripts, tags, place FROM search_source;
