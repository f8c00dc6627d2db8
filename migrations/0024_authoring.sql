-- Issue 22: authoring in the portal (docs/authoring.md).
--
-- The institution role `author` writes its institution's own tests.
ALTER TABLE staff DROP CONSTRAINT staff_role_check;
ALTER TABLE staff ADD CONSTRAINT staff_role_check CHECK (role IN ('operator', 'admin', 'author', 'reviewer', 'viewer'));

-- owner_institution_id: null for the operators' catalogue (published to any
-- institution); an institution's id for its own tests, published to it only.
-- deleted_at: a soft delete; the test leaves every listing and the partner's
-- reads, while the versions stay for the assignments that pinned them.
ALTER TABLE tests
  ADD COLUMN owner_institution_id text REFERENCES institutions (id) ON DELETE CASCADE,
  ADD COLUMN deleted_at timestamptz;
CREATE INDEX tests_owner ON tests (owner_institution_id, created_at) WHERE deleted_at IS NULL;

-- One draft per test: the TestInput body as the editor last saved it,
-- complete or not. `revision` grows by one per save; a save names the
-- revision it started from (optimistic concurrency), so two editors never
-- overwrite each other unknowingly. Publishing freezes it as a version.
CREATE TABLE test_drafts (
  test_id            text PRIMARY KEY REFERENCES tests (id) ON DELETE CASCADE,
  content            jsonb NOT NULL,
  revision           integer NOT NULL CHECK (revision >= 1),
  updated_by         text REFERENCES staff (id) ON DELETE SET NULL,
  updated_by_email   text,
  updated_at         timestamptz NOT NULL DEFAULT now(),
  -- Saves are audited at most once per editor per test per 10 minutes
  -- (catalog/drafts.ts): who the last entry was for, and when.
  audit_actor        text,
  audited_at         timestamptz
);
