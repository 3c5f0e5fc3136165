-- English words were indexed as they are written: a search for "swim" found no entry that
-- said "swimming" or "swims", and "meetings" no "meeting". A word of
-- ASCII letters (and a Latin word whose accents fold away: «café», «naïve») is now indexed
-- and searched by its Snowball English stem (Porter2), as Russian words are by theirs; a
-- prefix query (`swim*`) is not stemmed. As for migrations/0017, FTS5 deletes a row's
-- terms by tokenizing its text again, so the index is built again, whole.

DROP TABLE search;
CREATE VIRTUAL TABLE search USING fts5(title, body, transcripts, tags, place, tokenize = 'quire', prefix = '3');
INSERT INTO search(search, rank) VALUES ('hashsize', 8388608);
INSERT INTO search(rowid, title, body, transcripts, tags, place)
SELECT rowid, title, body, transcripts, tags, place FROM search_source;
