-- Issue 21: sections, per-candidate randomisation and file answers.
--
-- test_versions.sections: null for a flat test (one unnamed section, as
-- every version written before this migration); otherwise the sections in
-- order, each naming its questions by id. `questions` keeps holding every
-- question of the version, so the marking and review code that reads a
-- question by id keeps working for old and new versions alike.
ALTER TABLE test_versions ADD COLUMN sections jsonb;

-- attempts.delivery: what this candidate was shown, drawn when the attempt
-- begins and never changed after: each section's questions in shown order
-- (the pool's draw), the option order of each shuffled choice question and
-- the shown order of each ordering question. Null for attempts begun
-- before this migration: they saw every question in the test's order.
ALTER TABLE attempts ADD COLUMN delivery jsonb;

-- Files uploaded as answers to file_upload questions. The bytes live in
-- object storage under storage_key; the row holds what is needed to serve,
-- check and purge them. The answer names the file ({ "fileId": "fil_…" });
-- a replaced file's row and object are deleted once the new answer is stored.
CREATE TABLE answer_files (
  id             text PRIMARY KEY,
  assignment_id  text NOT NULL REFERENCES attempts (assignment_id) ON DELETE CASCADE,
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  question_id    text NOT NULL,
  storage_key    text NOT NULL UNIQUE,
  file_name      text NOT NULL,
  content_type   text NOT NULL,
  bytes          bigint NOT NULL CHECK (bytes >= 0),
  sha256         text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX answer_files_assignment ON answer_files (assignment_id, question_id);
CREATE INDEX answer_files_institution ON answer_files (institution_id, created_at);
