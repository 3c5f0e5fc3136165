-- Who wrote a transcript: '' for the user's own (typed, imported, from subtitles), or the
-- engine and model of a machine draft (`quire transcribe`), which the user may correct; and,
-- while a machine draft is unfinished, how far into the recording it got (seconds), so an
-- interrupted run resumes there. Both sync as changes of the media record (fields
-- "transcriber", "transcribedTo"), which Quires before this one pass over.
ALTER TABLE media ADD COLUMN transcriber TEXT NOT NULL DEFAULT '';
ALTER TABLE media ADD COLUMN transcribed_to REAL;
