-- Search finds tags and places too, and indexes an entry's text as its words: a snippet
-- reads "Went to see the fireworks", not "![](quire:media/…)". quire_plain() is registered
-- by the store on every connection, like the tokenizer.

DROP VIEW search_source;
DROP TABLE search;

CREATE VIRTUAL TABLE search USING fts5(title, body, transcripts, tags, place, tokenize = 'quire');

CREATE VIEW search_source AS
SELECT e.rowid AS rowid, e.id AS id, e.title AS title, quire_plain(e.body) AS body,
       coalesce((SELECT group_concat(m.transcript, char(10)) FROM media m
                 WHERE m.entry_id = e.id AND m.deleted = 0 AND m.transcript <> ''), '') AS transcripts,
       coalesce((SELECT group_concat(t.tag, ' ') FROM entry_tags t WHERE t.entry_id = e.id), '') AS tags,
       coalesce(e.place, '') AS place
FROM entries e
WHERE e.deleted = 0;

INSERT INTO search(rowid, title, body, transcripts, tags, place)
SELECT rowid, title, body, transcripts, tags, place FROM search_source;
