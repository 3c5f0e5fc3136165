-- FTS5 keeps the terms of rows written in a transaction in memory and writes them out as one
-- more segment each time they pass its hash size (1 MiB by default); every segment is merged
-- again later. 8 MiB makes an import's or a restore's index a few larger segments instead
-- of many small ones: at 100,000 entries (bench/store's journal, release, alternating runs)
-- the index build took 6.1-6.5 s instead of 7.5-7.8 s, for 11 MiB more peak memory. A
-- transaction writing a few entries holds no more than before.
INSERT INTO search(search, rank) VALUES ('hashsize', 8388608);
