-- Issue 24: results.
--
-- The item statistics of live attempts read a rollup instead of every mark:
-- per (institution, test version) running sums, exact (numeric), to which
-- each attempt is added once, when its assignment completes with a final
-- score (the job `results.roll_up`, enqueued in the transaction of that
-- transition). src/modules/results/statistics-repo.ts writes and reads it.
--   kind 'total':  n attempts; s1 = Σ percent, s2 = Σ percent²
--   kind 'item':   n attempts given the question; s1 = Σx, s2 = Σx², s3 = Σx·t, s4 = Σt, s5 = Σt²
--                  (x = the question's mark, t = the attempt's total of marks)
--   kind 'option': n attempts given the question that chose the option; s1 = Σt over them
--   kind 'fixed':  n attempts; s1 = Σf, s2 = Σf² (f = the marks of the questions outside pools), for alpha
-- Test-mode attempts are not rolled up (the test-data wipe deletes them); their
-- statistics are aggregated when asked for.
CREATE TABLE result_rollup (
  institution_id  text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  test_version_id text NOT NULL REFERENCES test_versions (id) ON DELETE CASCADE,
  kind            text NOT NULL CHECK (kind IN ('total', 'item', 'option', 'fixed')),
  question_id     text NOT NULL DEFAULT '',
  option_id       text NOT NULL DEFAULT '',
  n               bigint NOT NULL,
  s1              numeric NOT NULL DEFAULT 0,
  s2              numeric NOT NULL DEFAULT 0,
  s3              numeric NOT NULL DEFAULT 0,
  s4              numeric NOT NULL DEFAULT 0,
  s5              numeric NOT NULL DEFAULT 0,
  PRIMARY KEY (institution_id, test_version_id, kind, question_id, option_id)
);

-- The attempts already added, so a job run twice adds nothing twice.
CREATE TABLE result_rollup_attempts (
  assignment_id text PRIMARY KEY REFERENCES assignments (id) ON DELETE CASCADE,
  rolled_at     timestamptz NOT NULL DEFAULT now()
);

-- Test-mode statistics and the results export find an institution's completed
-- attempts of one version with this index.
CREATE INDEX assignments_completed_by_version ON assignments (institution_id, test_version_id, livemode) WHERE status = 'completed';

-- Attempts completed before this migration: one roll-up job each, run by the worker.
INSERT INTO jobs (kind, payload, unique_key)
SELECT 'results.roll_up', jsonb_build_object('assignmentId', id), 'results.roll_up:' || id
  FROM assignments WHERE status = 'completed' AND livemode AND score->>'gradingStatus' = 'final';
