-- Issue 25: Assay as an LTI 1.3 tool (docs/lti.md).

-- A learning platform registered with an institution: the platform's issuer
-- and the client id it gave Assay, the deployments allowed to launch, and
-- the platform's OIDC login, token and key-set URLs (each checked like a
-- webhook URL; the key set and the token URL are fetched through the
-- webhook address guard).
CREATE TABLE lti_platforms (
  id             text PRIMARY KEY,
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  issuer         text NOT NULL,
  client_id      text NOT NULL,
  deployment_ids text[] NOT NULL CHECK (cardinality(deployment_ids) >= 1),
  auth_login_url text NOT NULL,
  auth_token_url text NOT NULL,
  jwks_url       text NOT NULL,
  created_at     timestamptz NOT NULL,
  UNIQUE (issuer, client_id)
);
CREATE INDEX lti_platforms_institution ON lti_platforms (institution_id, created_at);

-- The tool's own RSA key pairs: the private key sealed with ASSAY_SECRET
-- (the webhook secret box, the key id as additional data), the public key as
-- a JWK. One current key (retired_at null) signs; a retired key stays
-- published at /lti/jwks for a while after a rotation.
CREATE TABLE lti_tool_keys (
  kid                text PRIMARY KEY,
  public_jwk         jsonb NOT NULL,
  private_key_sealed text NOT NULL,
  created_at         timestamptz NOT NULL,
  retired_at         timestamptz
);
CREATE UNIQUE INDEX lti_tool_keys_one_current ON lti_tool_keys ((retired_at IS NULL)) WHERE retired_at IS NULL;

-- A login started at /lti/login, waiting for its id_token: the state (as a
-- hash), the nonce the id_token must carry, and a hash of the value of the
-- cookie that binds it to the browser that started it. Used once.
CREATE TABLE lti_login_states (
  state_hash   text PRIMARY KEY,
  platform_id  text NOT NULL REFERENCES lti_platforms (id) ON DELETE CASCADE,
  nonce        text NOT NULL,
  browser_hash text NOT NULL,
  expires_at   timestamptz NOT NULL
);
CREATE INDEX lti_login_states_expiry ON lti_login_states (expires_at);

-- Nonces of accepted id_tokens: a token is accepted once.
CREATE TABLE lti_nonces (
  platform_id text NOT NULL REFERENCES lti_platforms (id) ON DELETE CASCADE,
  nonce       text NOT NULL,
  expires_at  timestamptz NOT NULL,
  PRIMARY KEY (platform_id, nonce)
);
CREATE INDEX lti_nonces_expiry ON lti_nonces (expires_at);

-- A placement of a test in a course (a resource link), with its context and
-- the line item (gradebook column) the platform gave it.
CREATE TABLE lti_resource_links (
  platform_id      text NOT NULL REFERENCES lti_platforms (id) ON DELETE CASCADE,
  resource_link_id text NOT NULL,
  institution_id   text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  test_id          text NOT NULL,
  context_id       text,
  context_title    text,
  title            text,
  lineitem_url     text,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  PRIMARY KEY (platform_id, resource_link_id)
);

-- One assignment per (resource link, user): the learner's `sub` for the
-- score posts, and where the completion page returns to.
CREATE TABLE lti_link_assignments (
  platform_id      text NOT NULL,
  resource_link_id text NOT NULL,
  sub              text NOT NULL,
  assignment_id    text NOT NULL UNIQUE REFERENCES assignments (id) ON DELETE CASCADE,
  institution_id   text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  lineitem_url     text,
  created_at       timestamptz NOT NULL,
  PRIMARY KEY (platform_id, resource_link_id, sub),
  FOREIGN KEY (platform_id, resource_link_id) REFERENCES lti_resource_links (platform_id, resource_link_id) ON DELETE CASCADE
);

-- A score to send to a line item (AGS), written with the event that causes
-- it (exam.completed, grading.done) and sent by the job queue. Every HTTP
-- attempt is kept in lti_score_attempts.
CREATE TABLE lti_score_posts (
  id             text PRIMARY KEY,
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  assignment_id  text NOT NULL REFERENCES assignments (id) ON DELETE CASCADE,
  platform_id    text NOT NULL REFERENCES lti_platforms (id) ON DELETE CASCADE,
  event_id       text NOT NULL UNIQUE,
  scores_url     text NOT NULL,
  body           jsonb NOT NULL,
  status         text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts       integer NOT NULL DEFAULT 0,
  created_at     timestamptz NOT NULL,
  delivered_at   timestamptz
);
CREATE INDEX lti_score_posts_assignment ON lti_score_posts (assignment_id, created_at);

CREATE TABLE lti_score_attempts (
  id            bigserial PRIMARY KEY,
  score_post_id text NOT NULL REFERENCES lti_score_posts (id) ON DELETE CASCADE,
  attempted_at  timestamptz NOT NULL,
  status_code   integer,
  error_class   text,
  excerpt       text,
  duration_ms   integer NOT NULL
);
CREATE INDEX lti_score_attempts_post ON lti_score_attempts (score_post_id, id);

-- A deep-linking launch waiting for the instructor's choice: where and what
-- to answer. Its id is the secret the picker's form carries.
CREATE TABLE lti_deep_link_requests (
  id_hash        text PRIMARY KEY,
  platform_id    text NOT NULL REFERENCES lti_platforms (id) ON DELETE CASCADE,
  deployment_id  text NOT NULL,
  return_url     text NOT NULL,
  data           text,
  expires_at     timestamptz NOT NULL
);

-- A one-time invitation to register a platform with LTI Dynamic Registration:
-- the operator makes one for an institution; the LMS administrator pastes its
-- URL into the platform, which opens it with its openid_configuration and
-- registration_token. Kept as a hash; used once; expires.
CREATE TABLE lti_registration_invites (
  token_hash     text PRIMARY KEY,
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  expires_at     timestamptz NOT NULL,
  used_at        timestamptz,
  lti_platform_id text
);
