-- The tokenizer now indexes Hangul as bigrams, as it does Han and kana (a Korean word
-- carries its particles: 서울에서 is "in Seoul", and a search for 서울 found nothing), and
-- Thai, Lao, Khmer and Myanmar too (written without spaces, a sentence was one word); it
-- folds Greek's final sigma to σ (ΟΔΟΣ was «οδοσ» and οδός «οδος»), German's ß to ss
-- (STRASSE and Strasse find Straße), Latin letters whose mark no decomposition takes off
-- (lodz finds Łódź, kobenhavn København), and Arabic and Persian letters each keyboard
-- writes its own way (ى ي ی; ك ک; ة as ه). FTS5 deletes a row's terms by tokenizing its
-- text again, so rows tokenized the old way cannot be rewritten one by one: the index is
-- built again, whole, as migrations/0013 built it.

DROP TABLE search;
CREATE VIRTUAL TABLE search USING fts5(title, body, transcripts, tags, place, tokenize = 'quire', prefix = '3');
INSERT INTO search(search, rank) VALUES ('hashsize', 8388608);
INSERT INTO search(rowid, title, body, transcripts, tags, place)
SELECT rowid, title, body, transcripts, tags, place FROM search_source;
