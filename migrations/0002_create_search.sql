-- Full-text search over titles, bodies and transcripts, one row per live entry
-- (rowid = entries.rowid), built from the search_source view. The store's Writer refreshes
-- the rows of the entries a transaction touched just before it commits, in two statements:
-- row triggers would make FTS5 flush its in-memory index at every statement (each
-- statement savepoint flushes it), which made a bulk import fifteen times slower.
-- The 'quire' tokenizer is registered by the store on every connection: words folded for case and diacritics, Russian stemmed, Japanese and Chinese
-- indexed as overlapping character bigrams (they have no spaces).

CREATE VIRTUAL TABLE search USING fts5(title, body, transcripts, tokenize = 'quire');

CREATE VIEW search_source AS
SELECT e.rowid AS rowid, e.id AS id, e.title AS title, e.body AS body,
       coalesce((SELECT group_concat(m.transcript, char(10)) FROM media m
                 WHERE m.entry_id = e.id AND m.deleted = 0 AND m.transcript <> ''), '') AS transcripts
FROM entries e
WHERE e.deleted = 0;

INSERT INTO search(rowid, title, body, transcripts)
SELECT rowid, title, body, transcripts FROM search_source;
