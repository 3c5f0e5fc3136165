-- A kept revision can be dismissed (`quire conflicts dismiss`, or kept with `quire conflicts
-- keep`, which writes it back first); the dismissal syncs as a change of the revision record
-- (field "dismissed"), which Quires before this one pass over. A revision whose dismissal
-- arrived before its text has an empty value until the text comes.
ALTER TABLE revisions ADD COLUMN dismissed INTEGER NOT NULL DEFAULT 0;
