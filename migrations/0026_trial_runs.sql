-- "Try it" (docs/authoring.md): a staff member takes the saved draft as a
-- student would, in test mode. The draft is frozen as a trial version, a
-- test_versions row with a negative number (never current, never listed);
-- `trial` names those rows for the readers that filter them.
ALTER TABLE test_versions ADD COLUMN trial boolean GENERATED ALWAYS AS (version < 0) STORED;

-- The trial's assignment: test mode (livemode = false), and `trial` so that
-- its lifecycle writes no event (no webhook, nothing in GET /events) and the
-- assignment listings and exports leave it out.
ALTER TABLE assignments ADD COLUMN trial boolean NOT NULL DEFAULT false;
ALTER TABLE assignments ADD CONSTRAINT assignments_trial_test_mode CHECK (NOT (trial AND livemode));
