-- Issue 22 (groundwork): how a version's texts are written, and images.
--
-- test_versions.content_format: 'plain' (every version before this, and the
-- default, so v1 files render unchanged) or 'markdown' (CommonMark with math,
-- rendered to MathML; docs/content.md).
ALTER TABLE test_versions
  ADD COLUMN content_format text NOT NULL DEFAULT 'plain' CHECK (content_format IN ('plain', 'markdown'));

-- Uploaded images (`![alt](asset:ast_…)` in Markdown). The bytes live in
-- object storage under storage_key, already checked (magic bytes) and, for
-- SVG, sanitised; an asset never changes, so it is served as immutable.
-- owner_institution_id: null for the operators' assets (the catalogue's),
-- an institution's id for its authors' own.
CREATE TABLE assets (
  id                   text PRIMARY KEY,
  owner_institution_id text REFERENCES institutions (id) ON DELETE CASCADE,
  storage_key          text NOT NULL UNIQUE,
  content_type         text NOT NULL,
  bytes                bigint NOT NULL CHECK (bytes >= 0),
  sha256               text NOT NULL,
  created_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX assets_owner ON assets (owner_institution_id, created_at);

-- Which assets a version's texts name, written with the version: a student
-- may load an asset only when a version they are assigned references it, a
-- lookup by (version, asset) rather than a search through the texts.
CREATE TABLE test_version_assets (
  test_version_id text NOT NULL REFERENCES test_versions (id) ON DELETE CASCADE,
  asset_id        text NOT NULL REFERENCES assets (id),
  PRIMARY KEY (test_version_id, asset_id)
);
CREATE INDEX test_version_assets_asset ON test_version_assets (asset_id);
