-- Webhooks (Standard Webhooks 1.0): partner endpoints, one delivery row per
-- (event, endpoint) written in the event's own transaction, and every attempt.
-- The delivery row is the unit of work: the dispatcher claims due rows with
-- FOR UPDATE SKIP LOCKED under a lease (locked_until), so a dispatcher that
-- dies mid-request loses its lease and another one delivers the event again.

CREATE TABLE webhook_endpoints (
  id                  text PRIMARY KEY,
  institution_id      text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  url                 text NOT NULL,
  description         text,
  -- NULL: every event type, including types added later.
  event_types         text[],
  status              text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
  -- Why it is disabled: partner, operator, gone (answered 410), failing (5 days of failures).
  disabled_reason     text CHECK (disabled_reason IN ('partner', 'operator', 'gone', 'failing')),
  disabled_at         timestamptz,
  -- Secrets are encrypted with a key derived from ASSAY_SECRET (see webhooks/secret-box.ts).
  secret_enc          text NOT NULL,
  previous_secret_enc text,
  previous_secret_expires_at timestamptz,
  -- First failed attempt of the current run of failures; NULL after any success.
  failing_since       timestamptz,
  -- Set after a 429/502/503/504 (or Retry-After): no attempt to this endpoint before it.
  paused_until        timestamptz,
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL,
  CHECK ((status = 'disabled') = (disabled_reason IS NOT NULL))
);
CREATE INDEX webhook_endpoints_institution ON webhook_endpoints (institution_id, created_at, id);

-- Internal rows, never shown by id: a partner names a delivery by (event, endpoint).
CREATE TABLE webhook_deliveries (
  id             bigserial PRIMARY KEY,
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  event_id       text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  endpoint_id    text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  status         text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  -- Attempts since the delivery was (re)scheduled: the position in the retry schedule.
  attempts       integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  locked_until   timestamptz,
  locked_by      text,
  -- Bumped by a redelivery request, so an attempt already in flight does not settle the new request.
  generation     integer NOT NULL DEFAULT 1,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL,
  UNIQUE (event_id, endpoint_id)
);
-- The dispatcher walks endpoints with due work, then each endpoint's due rows in order.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE status = 'pending';
-- In-flight rows per endpoint (the per-endpoint concurrency limit); small: only leased rows.
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (endpoint_id, locked_until) WHERE status = 'pending' AND locked_until IS NOT NULL;

CREATE TABLE webhook_attempts (
  id              bigserial PRIMARY KEY,
  delivery_id     bigint NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  institution_id  text NOT NULL,
  attempted_at    timestamptz NOT NULL,
  -- The HTTP status, or NULL with error_class saying why no status came back.
  status_code     integer,
  error_class     text,
  duration_ms     integer NOT NULL,
  -- At most the first 1 KB of the response body.
  response_excerpt text,
  -- When the next attempt is due, NULL when this attempt settled the delivery.
  next_attempt_at timestamptz,
  worker_id       text
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, id);
CREATE INDEX webhook_attempts_time ON webhook_attempts (attempted_at);
