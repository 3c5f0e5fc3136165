-- The tokenizer split a word at a zero-width non-joiner, a zero-width joiner, a soft hyphen
-- or a word joiner. Persian writes می‌خواهم ("I want") and کتاب‌ها ("books") with a
-- non-joiner that half of its writers leave out or type as a space: a search for میخواهم
-- found nothing. A word is now one token with those left out, and in a document each part
-- of a word with non-joiners is also indexed at its position (خواهم still finds it); an
-- imported page's soft hyphens no longer cut its words in two. Arabic-script words lose
-- the article and "and" in front and their commonest endings (Lucene's light stemmer): a
-- search for مدرسة ("school") found المدرسة ("the school") nowhere; a Hebrew word is also
-- indexed without the one-letter words in front of it (ובבית, "and in the house", is found
-- by בית). As for migrations/0017, FTS5 deletes a row's terms by tokenizing its text again,
-- so the index is built again, whole.

DROP TABLE search;
CREATE VIRTUAL TABLE search USING fts5(title, body, transcripts, tags, place, tokenize = 'quire', prefix = '3');
INSERT INTO search(search, rank) VALUES ('hashsize', 8388608);
INSERT INTO search(rowid, title, body, transcripts, tags, place)
SELECT rowid, title, body, transcripts, tags, place FROM search_source;
