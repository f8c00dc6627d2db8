-- Assay core schema. Every table a partner can reach carries institution_id,
-- and every partner query filters on it. Ids are opaque prefixed strings.

CREATE TABLE institutions (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  status      text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX institutions_created ON institutions (created_at, id);

-- Allowlisted callbackUrl hosts. '*.example.com' allows any subdomain of example.com.
CREATE TABLE callback_domains (
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  domain         text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (institution_id, domain)
);

-- Only a SHA-256 of the key is stored; the key is shown once at creation.
CREATE TABLE api_keys (
  id             text PRIMARY KEY,
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  key_hash       text NOT NULL UNIQUE,
  prefix         text NOT NULL,
  label          text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  last_used_at   timestamptz,
  revoked_at     timestamptz
);
CREATE INDEX api_keys_institution ON api_keys (institution_id, created_at);

CREATE TABLE users (
  id               text PRIMARY KEY,
  institution_id   text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  external_user_id text NOT NULL,
  email            text NOT NULL,
  name             text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (institution_id, external_user_id)
);

CREATE TABLE tests (
  id              text PRIMARY KEY,
  current_version integer NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);

-- A version is immutable once written: assignments pin one.
CREATE TABLE test_versions (
  id                text PRIMARY KEY,
  test_id           text NOT NULL REFERENCES tests (id) ON DELETE CASCADE,
  version           integer NOT NULL,
  title             text NOT NULL,
  description       text NOT NULL,
  duration_minutes  integer NOT NULL CHECK (duration_minutes BETWEEN 1 AND 1440),
  proctoring        text NOT NULL CHECK (proctoring IN ('none', 'record', 'live_ai')),
  marking           text NOT NULL CHECK (marking IN ('auto', 'manual', 'hybrid')),
  result_visibility text NOT NULL CHECK (result_visibility IN ('immediate', 'after_review')),
  pass_percent      numeric CHECK (pass_percent BETWEEN 0 AND 100),
  questions         jsonb NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (test_id, version)
);

CREATE TABLE publications (
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  test_id        text NOT NULL REFERENCES tests (id) ON DELETE CASCADE,
  published_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (institution_id, test_id)
);
CREATE INDEX publications_listing ON publications (institution_id, published_at, test_id);

CREATE TABLE assignments (
  id              text PRIMARY KEY,
  institution_id  text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  user_id         text NOT NULL REFERENCES users (id),
  test_id         text NOT NULL REFERENCES tests (id),
  test_version_id text NOT NULL REFERENCES test_versions (id),
  status          text NOT NULL CHECK (status IN ('assigned', 'started', 'submitted', 'marking', 'completed', 'expired')),
  callback_url    text NOT NULL,
  due_at          timestamptz,
  metadata        jsonb,
  -- Bumping link_version invalidates every start link issued before.
  link_version    integer NOT NULL DEFAULT 1,
  -- Last data.sequence given to an event of this assignment.
  event_sequence  integer NOT NULL DEFAULT 0,
  score           jsonb,
  created_at      timestamptz NOT NULL DEFAULT now(),
  started_at      timestamptz,
  submitted_at    timestamptz,
  completed_at    timestamptz,
  expired_at      timestamptz
);
CREATE INDEX assignments_institution ON assignments (institution_id, created_at DESC);
CREATE INDEX assignments_user ON assignments (user_id);
CREATE INDEX assignments_due ON assignments (due_at) WHERE status = 'assigned' AND due_at IS NOT NULL;

-- Idempotency-Key records for POST /assignments, scoped per institution, purged after 24 h.
CREATE TABLE idempotency_keys (
  institution_id  text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  key             text NOT NULL,
  fingerprint     text NOT NULL,
  assignment_id   text REFERENCES assignments (id) ON DELETE CASCADE,
  response_status integer NOT NULL,
  response_body   text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (institution_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- The outbox: events are written in the transaction of the change that causes them.
CREATE TABLE events (
  id             text PRIMARY KEY,
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  assignment_id  text REFERENCES assignments (id) ON DELETE CASCADE,
  type           text NOT NULL,
  sequence       integer,
  data           jsonb NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (assignment_id, sequence)
);
CREATE INDEX events_listing ON events (institution_id, created_at DESC, id DESC);
CREATE INDEX events_by_assignment ON events (institution_id, assignment_id, created_at DESC);
CREATE INDEX events_created ON events (created_at);

-- Durable background work (expiry at dueAt, auto-submit, purges, deliveries).
-- Claimed with FOR UPDATE SKIP LOCKED under a lease: a worker that dies
-- loses its lease and another worker takes the job after `locked_until`.
CREATE TABLE jobs (
  id           bigserial PRIMARY KEY,
  kind         text NOT NULL,
  payload      jsonb NOT NULL DEFAULT '{}',
  run_at       timestamptz NOT NULL DEFAULT now(),
  attempts     integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 25,
  locked_until timestamptz,
  locked_by    text,
  last_error   text,
  unique_key   text UNIQUE,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_ready ON jobs (run_at, id);
ALTER TABLE jobs ADD COLUMN failed_at timestamptz;
CREATE INDEX jobs_claimable ON jobs (run_at, id) WHERE failed_at IS NULL;
