-- Multilingual test content (docs/test-format.md "Languages"): the language a
-- version's texts are written in (null: not declared, read as `en`) and its
-- translations, per locale per text path `{ text, source }` where `source`
-- hashes the source text it was translated from (stale when that changes).
-- A draft's content keeps its translations as written; `test_drafts.translations`
-- keeps their source hashes between saves. Every existing row: none.
ALTER TABLE test_versions ADD COLUMN language text CHECK (length(language) <= 35);
ALTER TABLE test_versions ADD COLUMN translations jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE test_drafts ADD COLUMN translations jsonb NOT NULL DEFAULT '{}'::jsonb;
