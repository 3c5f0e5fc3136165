-- The tokenizer took every nonspacing mark off a word, which in the Indic scripts are
-- vowel signs, the anusvara and the virama: कुल ("total") and कल ("yesterday") were one
-- word, and Tamil's கல் ("stone") lost its virama. It now takes off only diacritics
-- (accents, Hebrew points, Arabic harakat, the nukta). It also reads every script's digits
-- as ASCII ones: ٢٠٢٥ (Arabic), ۱۴۰۲ (Persian) and २०२५ (Devanagari) are found by 2025
-- and 1402. As for migrations/0017, FTS5 deletes a row's terms by tokenizing its text
-- again, so the index is built again, whole.

DROP TABLE search;
CREATE VIRTUAL TABLE search USING fts5(title, body, transcripts, tags, place, tokenize = 'quire', prefix = '3');
INSERT INTO search(search, rank) VALUES ('hashsize', 8388608);
INSERT INTO search(rowid, title, body, transcripts, tags, place)
SELECT rowid, title, body, transcripts, tags, place FROM search_source;
