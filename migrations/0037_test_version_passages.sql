-- Shared passages (QTI shared stimuli): a test version's texts shown beside
-- each question whose passageId names one (src/modules/catalog/passages.ts).
-- A column of their own, read with the questions; existing versions have none.
ALTER TABLE test_versions ADD COLUMN passages jsonb NOT NULL DEFAULT '[]'::jsonb;
