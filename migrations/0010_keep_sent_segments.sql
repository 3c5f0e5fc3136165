-- This device's own change-log segments as it sealed them, kept until a prune of its own
-- deletes them from the server: a server's 2xx is not durability. A server that loses
-- what it acknowledged (a power cut before it flushed, a disk restored from an older
-- backup) gets the very same bytes back under the same names (`quire sync` when this
-- device's head is gone, `quire verify --repair`), so every device's chain stays whole.
-- Written before the head that publishes them; a row above this device's log position is
-- a push that did not finish, replaced by the next.
CREATE TABLE sent_segments (
    seq   INTEGER PRIMARY KEY,
    data  BLOB NOT NULL
);
