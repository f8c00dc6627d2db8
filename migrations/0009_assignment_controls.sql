-- Assignment controls: accommodations, cancellation, start-link reissue, PATCH idempotency.

-- `cancelled` is an added status (assigned or started → cancelled).
ALTER TABLE assignments DROP CONSTRAINT assignments_status_check;
ALTER TABLE assignments ADD CONSTRAINT assignments_status_check
  CHECK (status IN ('assigned', 'started', 'submitted', 'marking', 'completed', 'expired', 'cancelled'));
ALTER TABLE assignments ADD COLUMN cancelled_at timestamptz;
-- { extraTimePercent? | extraTimeMinutes?, proctoring?: { fullscreenRequired?, copyPasteAllowed? } }, NULL for none.
ALTER TABLE assignments ADD COLUMN accommodations jsonb;

-- `attempts.submitted_at` is the moment the attempt closed. A cancellation
-- closes a running attempt too (submitted_by = 'cancelled'), so every check
-- of an open attempt (`submitted_at IS NULL`: saves, the auto-submit,
-- proctoring uploads and the interruption sweep) treats it as closed without
-- knowing about cancellation. The assignment's own submitted_at stays NULL.
ALTER TABLE attempts DROP CONSTRAINT attempts_submitted_by_check;
ALTER TABLE attempts ADD CONSTRAINT attempts_submitted_by_check CHECK (submitted_by IN ('student', 'deadline', 'cancelled'));

-- Which start link opened a session, so reissuing the link (link_version + 1)
-- can end the sessions the old link opened. NULL for sessions from before.
ALTER TABLE student_sessions ADD COLUMN assignment_id text REFERENCES assignments (id) ON DELETE CASCADE;
ALTER TABLE student_sessions ADD COLUMN link_version integer;
CREATE INDEX student_sessions_link ON student_sessions (assignment_id, link_version) WHERE assignment_id IS NOT NULL;

-- Whether partners of the institution may relax proctoring per assignment (operator setting).
ALTER TABLE institutions ADD COLUMN allow_proctoring_relaxations boolean NOT NULL DEFAULT false;

-- Idempotency keys are scoped by route as well: the same key may be used on
-- the creation and on a PATCH without one replaying the other.
ALTER TABLE idempotency_keys ADD COLUMN scope text NOT NULL DEFAULT 'POST /assignments';
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (institution_id, scope, key);
