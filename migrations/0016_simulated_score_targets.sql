-- Test mode: the `score` a simulated submit aimed at, so a later simulated
-- finish_marking without its own score marks towards the same percentage
-- (a run that submits at 80 % ends at 80 %, not at full marks for the
-- essays). One row per test-mode assignment that was submitted with a score;
-- it goes with the assignment (the test-data wipe and purge delete those).
CREATE TABLE simulated_score_targets (
  assignment_id  text PRIMARY KEY REFERENCES assignments (id) ON DELETE CASCADE,
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  percent        numeric NOT NULL CHECK (percent >= 0 AND percent <= 100)
);
