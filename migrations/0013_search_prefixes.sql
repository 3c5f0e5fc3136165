-- Prefix searches (`quire search tok*`) read a prefix index of three characters instead of
-- expanding the prefix to every word it starts. At 100,000 entries (bench/store, release) a
-- three-character prefix took p50 4.7 / p95 30 ms and now 4.5 / 15 ms, for a database 6 %
-- larger and an import 16 % slower (11.9 s -> 13.8 s). Two and three lengths ('2 3') cut
-- two-character prefixes from 105 ms to 12 ms too, but cost the import a third: left out.

DROP TABLE search;
CREATE VIRTUAL TABLE search USING fts5(title, body, transcripts, tags, place, tokenize = 'quire', prefix = '3');
INSERT INTO search(rowid, title, body, transcripts, tags, place)
SELECT rowid, title, body, transcripts, tags, place FROM search_source;
