-- The institution portal: indexes for its pages at 100,000 assignments per
-- institution, and the reviewers' marking drafts and "who opened this" record.

-- Assignments page: newest first, paged by keyset (created_at, id), each
-- filter with its own leading columns so a filtered page is an index range.
-- The new index covers everything the old one did (same leading columns).
CREATE INDEX assignments_listing ON assignments (institution_id, created_at DESC, id DESC);
DROP INDEX assignments_institution;
CREATE INDEX assignments_by_status ON assignments (institution_id, status, created_at DESC, id DESC);
CREATE INDEX assignments_by_test ON assignments (institution_id, test_id, created_at DESC, id DESC);
-- The marking queue: oldest submission first, and its counts per test, from a small
-- partial index that also carries test and user, so both are index-only scans.
CREATE INDEX assignments_marking_queue ON assignments (institution_id, submitted_at, id) INCLUDE (test_id, user_id) WHERE status = 'marking';
-- Overview: completions per day, as an index-only scan.
CREATE INDEX assignments_completed ON assignments (institution_id, completed_at) WHERE completed_at IS NOT NULL;

-- Search by externalUserId prefix (text_pattern_ops: LIKE 'abc%' is a range scan whatever the collation).
CREATE INDEX users_external_prefix ON users (institution_id, external_user_id text_pattern_ops);

-- Webhooks page: an endpoint's delivery log, newest first; the overview's
-- success rate (by creation time) and oldest pending delivery. None of these
-- columns is touched by a dispatcher claim, so claims stay HOT updates.
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (endpoint_id, id DESC);
CREATE INDEX webhook_deliveries_institution ON webhook_deliveries (institution_id, created_at);
CREATE INDEX webhook_deliveries_pending_age ON webhook_deliveries (institution_id, created_at) WHERE status = 'pending';

-- A reviewer's unfinished marks for one assignment, kept until they finish
-- (or another reviewer does). `base_version` is the marks version the draft
-- was started from: finishing from a stale draft is refused, never applied.
CREATE TABLE marking_drafts (
  assignment_id  text NOT NULL REFERENCES assignments (id) ON DELETE CASCADE,
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  staff_id       text NOT NULL,
  marks          jsonb NOT NULL,
  base_version   text NOT NULL,
  updated_at     timestamptz NOT NULL,
  PRIMARY KEY (assignment_id, staff_id)
);

-- Who has the marking item open, so a second reviewer is told.
CREATE TABLE marking_opens (
  assignment_id  text NOT NULL REFERENCES assignments (id) ON DELETE CASCADE,
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  staff_id       text NOT NULL,
  staff_label    text NOT NULL,
  opened_at      timestamptz NOT NULL,
  PRIMARY KEY (assignment_id, staff_id)
);
