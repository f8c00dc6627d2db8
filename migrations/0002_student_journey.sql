-- The student journey: sign-in sessions, attempts, autosaved answers, marks.

-- Server-side sessions created by opening a start link. Only a SHA-256 of the
-- session id (the cookie value) is stored, so a database read gives no
-- usable session. The CSRF token is not a credential on its own: it is only
-- accepted together with the session cookie.
CREATE TABLE student_sessions (
  id_hash        text PRIMARY KEY,
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  user_id        text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  csrf_token     text NOT NULL,
  created_at     timestamptz NOT NULL,
  last_seen_at   timestamptz NOT NULL,
  expires_at     timestamptz NOT NULL
);
CREATE INDEX student_sessions_expiry ON student_sessions (expires_at);

-- One attempt per assignment (no retake), created when the student begins.
-- The deadline is fixed at that moment; user and test version are copied
-- from the assignment (both immutable) so an autosave needs this row only.
CREATE TABLE attempts (
  assignment_id   text PRIMARY KEY REFERENCES assignments (id) ON DELETE CASCADE,
  institution_id  text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  user_id         text NOT NULL REFERENCES users (id),
  test_version_id text NOT NULL REFERENCES test_versions (id),
  started_at      timestamptz NOT NULL,
  deadline_at     timestamptz NOT NULL,
  submitted_at    timestamptz,
  -- 'student' (pressed Submit or the page's timer ran out) or 'deadline' (the server's auto-submit).
  submitted_by    text CHECK (submitted_by IN ('student', 'deadline'))
);
CREATE INDEX attempts_institution ON attempts (institution_id, started_at DESC);

-- The latest accepted answer per question. `version` comes from the browser
-- (increasing per edit); a save only replaces a row with a lower version, so
-- a stale or replayed save never overwrites a newer answer.
CREATE TABLE answers (
  assignment_id  text NOT NULL REFERENCES attempts (assignment_id) ON DELETE CASCADE,
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  question_id    text NOT NULL,
  value          jsonb,
  version        bigint NOT NULL,
  saved_at       timestamptz NOT NULL,
  PRIMARY KEY (assignment_id, question_id)
);

-- One mark per question of a submitted attempt: written by auto-marking at
-- submission ('auto') or by a reviewer ('reviewer').
CREATE TABLE marks (
  assignment_id  text NOT NULL REFERENCES attempts (assignment_id) ON DELETE CASCADE,
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  question_id    text NOT NULL,
  points         numeric NOT NULL CHECK (points >= 0),
  source         text NOT NULL CHECK (source IN ('auto', 'reviewer')),
  comment        text,
  marked_by      text,
  marked_at      timestamptz NOT NULL,
  PRIMARY KEY (assignment_id, question_id)
);
