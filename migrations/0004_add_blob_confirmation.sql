-- A repository blob id is "confirmed" once a published segment (or snapshot) names it. An
-- unconfirmed one (uploaded by a push that did not finish) may have been collected by a
-- prune since, so the next push checks it is still there before naming it.
ALTER TABLE remote_blobs ADD COLUMN confirmed INTEGER NOT NULL DEFAULT 0;
