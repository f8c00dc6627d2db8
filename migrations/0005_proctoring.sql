-- Proctoring: flags, recording segments, snapshots, and per-attempt state.
-- Files live in object storage (src/platform/storage.ts); rows hold their
-- keys and sizes only. Every row carries institution_id, and every query
-- filters on it.

-- The test's thresholds (resolved at authoring), NULL for proctoring none.
ALTER TABLE test_versions ADD COLUMN proctoring_rules jsonb;

-- One row per proctored attempt, created by its first heartbeat, upload or
-- sweep. Holds what the heartbeat path needs in one row (last heartbeat, the
-- open interruption) and the flag summary the partner read shows, kept in
-- step with the flags in their own transactions, and kept after the purge
-- (the counts outlive the evidence).
CREATE TABLE proctoring_sessions (
  assignment_id        text PRIMARY KEY REFERENCES attempts (assignment_id) ON DELETE CASCADE,
  institution_id       text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  last_heartbeat_at    timestamptz,
  camera_active        boolean,
  fullscreen           boolean,
  -- The proctoring_interrupted flag of the current silence, closed by the next heartbeat.
  interrupted_flag_id  text,
  flags_critical       integer NOT NULL DEFAULT 0,
  flags_warning        integer NOT NULL DEFAULT 0,
  flags_info           integer NOT NULL DEFAULT 0,
  critical_unreviewed  integer NOT NULL DEFAULT 0,
  confirmed            integer NOT NULL DEFAULT 0,
  dismissed            integer NOT NULL DEFAULT 0,
  -- Set when integrity.reviewed was appended (once).
  reviewed_at          timestamptz,
  purged_at            timestamptz,
  created_at           timestamptz NOT NULL
);
CREATE INDEX proctoring_sessions_unpurged ON proctoring_sessions (created_at) WHERE purged_at IS NULL;
-- The sweep closes the open interruptions of submitted attempts: few rows at any time.
CREATE INDEX proctoring_sessions_interrupted ON proctoring_sessions (assignment_id) WHERE interrupted_flag_id IS NOT NULL;

-- The interruption sweep scans open attempts only: a small partial index.
CREATE INDEX attempts_open ON attempts (started_at) WHERE submitted_at IS NULL;

CREATE TABLE proctoring_flags (
  id                text PRIMARY KEY,
  institution_id    text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  assignment_id     text NOT NULL REFERENCES attempts (assignment_id) ON DELETE CASCADE,
  -- The page's id for the signal; NULL for flags the server raises itself.
  signal_id         text,
  kind              text NOT NULL CHECK (kind IN ('no_face', 'multiple_faces', 'left_test', 'fullscreen_exit', 'copy_paste',
                                                  'camera_stopped', 'second_screen', 'proctoring_interrupted')),
  severity          text NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
  started_at        timestamptz NOT NULL,
  duration_seconds  double precision NOT NULL CHECK (duration_seconds >= 0),
  ongoing           boolean NOT NULL,
  -- left_test: the how-many-th time the student left (the 3rd is critical by default).
  occurrence        integer,
  evidence_snapshot_id text,
  -- The violation.detected event, appended once when the flag first became critical.
  violation_event_id text,
  review_outcome    text CHECK (review_outcome IN ('confirmed', 'dismissed')),
  review_note       text,
  reviewed_by       text,
  reviewed_at       timestamptz,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  UNIQUE (assignment_id, signal_id)
);
CREATE INDEX proctoring_flags_timeline ON proctoring_flags (institution_id, assignment_id, started_at, id);

CREATE TABLE recording_segments (
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  assignment_id  text NOT NULL REFERENCES attempts (assignment_id) ON DELETE CASCADE,
  seq            integer NOT NULL CHECK (seq BETWEEN 0 AND 99999),
  storage_key    text NOT NULL,
  size_bytes     integer NOT NULL,
  content_type   text NOT NULL,
  started_at     timestamptz NOT NULL,
  duration_ms    integer NOT NULL CHECK (duration_ms >= 0),
  created_at     timestamptz NOT NULL,
  -- Also the listing order (seq order) and the idempotency check.
  PRIMARY KEY (assignment_id, seq)
);

CREATE TABLE proctoring_snapshots (
  id             text PRIMARY KEY,
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  assignment_id  text NOT NULL REFERENCES attempts (assignment_id) ON DELETE CASCADE,
  -- X-Snapshot-Id from the page: a retried upload is stored once.
  client_id      text,
  flag_id        text REFERENCES proctoring_flags (id) ON DELETE SET NULL,
  storage_key    text NOT NULL,
  size_bytes     integer NOT NULL,
  taken_at       timestamptz NOT NULL,
  created_at     timestamptz NOT NULL,
  UNIQUE (assignment_id, client_id)
);
CREATE INDEX proctoring_snapshots_timeline ON proctoring_snapshots (institution_id, assignment_id, taken_at);
