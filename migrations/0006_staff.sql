-- Staff of the portal: accounts with one role, emailed sign-in links,
-- server-side portal sessions, passkeys, and the audit log.

-- An operator runs the platform (institution_id NULL); admin, reviewer and
-- viewer belong to one institution. A removed account keeps its row (audit
-- entries and marks name it) but can no longer sign in, and its address can
-- be invited again.
CREATE TABLE staff (
  id             text PRIMARY KEY,
  institution_id text REFERENCES institutions (id) ON DELETE CASCADE,
  email          text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
  name           text,
  role           text NOT NULL CHECK (role IN ('operator', 'admin', 'reviewer', 'viewer')),
  created_at     timestamptz NOT NULL,
  last_sign_in_at timestamptz,
  removed_at     timestamptz,
  CHECK ((role = 'operator') = (institution_id IS NULL))
);
-- Addresses are stored lower-cased (the CHECK above), so these are case-insensitive.
CREATE UNIQUE INDEX staff_email_per_institution ON staff (institution_id, email) WHERE removed_at IS NULL AND institution_id IS NOT NULL;
CREATE UNIQUE INDEX staff_operator_email ON staff (email) WHERE removed_at IS NULL AND institution_id IS NULL;
CREATE INDEX staff_by_email ON staff (email) WHERE removed_at IS NULL;
CREATE INDEX staff_institution ON staff (institution_id, created_at, id);

-- One-time sign-in links: only a SHA-256 of the token is stored. Valid 15
-- minutes, single use (consumed_at is set by the one statement that accepts it).
CREATE TABLE sign_in_links (
  token_hash  text PRIMARY KEY,
  staff_id    text NOT NULL REFERENCES staff (id) ON DELETE CASCADE,
  next_path   text,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  consumed_at timestamptz
);
CREATE INDEX sign_in_links_expiry ON sign_in_links (expires_at);

-- Portal sessions: only a SHA-256 of the cookie value is stored. A session
-- ends after 30 minutes without a request (last_seen_at) or 12 hours after
-- sign-in (expires_at), whichever comes first.
CREATE TABLE portal_sessions (
  id_hash      text PRIMARY KEY,
  staff_id     text NOT NULL REFERENCES staff (id) ON DELETE CASCADE,
  csrf_token   text NOT NULL,
  created_at   timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  -- 'link' or 'passkey': how this session was opened.
  method       text NOT NULL CHECK (method IN ('link', 'passkey'))
);
CREATE INDEX portal_sessions_staff ON portal_sessions (staff_id);
CREATE INDEX portal_sessions_expiry ON portal_sessions (expires_at);

-- Sign-in attempt counters in fixed windows, shared by every API process.
-- A bucket is 'email:<sha256 of the address>' or 'ip:<address>'; the
-- address itself is not kept, whether or not it has an account.
CREATE TABLE sign_in_throttle (
  bucket       text PRIMARY KEY,
  window_start timestamptz NOT NULL,
  attempts     integer NOT NULL
);
CREATE INDEX sign_in_throttle_window ON sign_in_throttle (window_start);

-- WebAuthn credentials (passkeys) registered by staff from the account page.
CREATE TABLE staff_passkeys (
  credential_id text PRIMARY KEY,
  staff_id      text NOT NULL REFERENCES staff (id) ON DELETE CASCADE,
  public_key    bytea NOT NULL,
  counter       bigint NOT NULL,
  transports    text[] NOT NULL DEFAULT '{}',
  device_type   text NOT NULL,
  backed_up     boolean NOT NULL,
  name          text NOT NULL,
  created_at    timestamptz NOT NULL,
  last_used_at  timestamptz
);
CREATE INDEX staff_passkeys_staff ON staff_passkeys (staff_id, created_at);

-- Outstanding WebAuthn challenges, each usable once within 5 minutes.
-- Registration challenges belong to the signed-in staff member.
CREATE TABLE webauthn_challenges (
  challenge  text PRIMARY KEY,
  purpose    text NOT NULL CHECK (purpose IN ('register', 'sign_in')),
  staff_id   text REFERENCES staff (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL
);
CREATE INDEX webauthn_challenges_expiry ON webauthn_challenges (expires_at);

-- Every change made in the portal or through the operator API: who (a staff
-- member, the operator token, a partner key, the command line), what, on
-- which object, for which institution, from which address, and when.
-- No foreign keys: an entry outlives the objects and accounts it names.
CREATE TABLE audit_log (
  id             bigserial PRIMARY KEY,
  at             timestamptz NOT NULL,
  institution_id text,
  actor_kind     text NOT NULL CHECK (actor_kind IN ('staff', 'operator_token', 'partner_key', 'cli')),
  actor_id       text,
  actor_email    text,
  action         text NOT NULL,
  object_type    text NOT NULL,
  object_id      text,
  ip             text,
  details        jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_institution ON audit_log (institution_id, at DESC, id DESC);
CREATE INDEX audit_log_at ON audit_log (at DESC, id DESC);
