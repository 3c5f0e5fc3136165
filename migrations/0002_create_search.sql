-- Full-text search over titles, bodies and transcripts, one row per live entry
-- (rowid = entries.rowid). The 'quire' tokenizer is registered by the store on every
-- connection: words folded for case and diacritics, Russian stemmed, Japanese and Chinese
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

CREATE TRIGGER search_entry_insert AFTER INSERT ON entries BEGIN
    INSERT INTO search(rowid, title, body, transcripts)
    SELECT rowid, title, body, transcripts FROM search_source WHERE id = new.id;
END;

CREATE TRIGGER search_entry_update AFTER UPDATE OF title, body, deleted ON entries BEGIN
    DELETE FROM search WHERE rowid = old.rowid;
    INSERT INTO search(rowid, title, body, transcripts)
    SELECT rowid, title, body, transcripts FROM search_source WHERE id = new.id;
END;

CREATE TRIGGER search_entry_delete AFTER DELETE ON entries BEGIN
    DELETE FROM search WHERE rowid = old.rowid;
END;

CREATE TRIGGER search_media_insert AFTER INSERT ON media WHEN new.transcript <> '' BEGIN
    DELETE FROM search WHERE rowid = (SELECT rowid FROM entries WHERE id = new.entry_id);
    INSERT INTO search(rowid, title, body, transcripts)
    SELECT rowid, title, body, transcripts FROM search_source WHERE id = new.entry_id;
END;

CREATE TRIGGER search_media_update AFTER UPDATE OF transcript, deleted, entry_id ON media BEGIN
    DELETE FROM search WHERE rowid IN (SELECT rowid FROM entries WHERE id IN (old.entry_id, new.entry_id));
    INSERT INTO search(rowid, title, body, transcripts)
    SELECT rowid, title, body, transcripts FROM search_source WHERE id IN (old.entry_id, new.entry_id);
END;

CREATE TRIGGER search_media_delete AFTER DELETE ON media BEGIN
    DELETE FROM search WHERE rowid = (SELECT rowid FROM entries WHERE id = old.entry_id);
    INSERT INTO search(rowid, title, body, transcripts)
    SELECT rowid, title, body, transcripts FROM search_source WHERE id = old.entry_id;
END;
