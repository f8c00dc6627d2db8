-- "Try it" (docs/authoring.md): a staff member takes the saved draft as a
-- student would, in test mode. The draft is snapshotted as a TRIAL version:
-- a test_versions row with `trial` set and a negative number (-1, -2, …),
-- so it is never the current version (tests.current_version >= 0), never
-- listed with the versions, never counted in the version numbering, and the
-- joins on `version = current_version` (partner listings, assigning,
-- statistics, exports) cannot reach it.
ALTER TABLE test_versions ADD COLUMN trial boolean NOT NULL DEFAULT false;
ALTER TABLE test_versions ADD CONSTRAINT test_versions_trial_numbering CHECK (trial = (version < 0));

-- The trial's assignment: test mode (livemode = false), and `trial` so that
-- its lifecycle writes no event (no webhook, nothing in GET /events).
ALTER TABLE assignments ADD COLUMN trial boolean NOT NULL DEFAULT false;
ALTER TABLE assignments ADD CONSTRAINT assignments_trial_test_mode CHECK (NOT (trial AND livemode));
