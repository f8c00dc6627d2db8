-- AI marking: a model's suggestion per AI-marked item, its provenance, the
-- reviewer's mark beside it (for agreement figures), and a per-institution
-- daily count of model calls (the budget).

-- A mark may now be the model's (decide mode): marked_by is 'ai:<model>'.
ALTER TABLE marks DROP CONSTRAINT marks_source_check;
ALTER TABLE marks ADD CONSTRAINT marks_source_check CHECK (source IN ('auto', 'reviewer', 'ai'));

-- One row per (assignment, question) the model is asked to mark, written in
-- the submission's transaction with its job. Status:
--   pending      the job is queued or waiting to retry (failure_reason: the last error);
--   suggested    a valid reply is stored (criteria, points, confidence, flags);
--   failed       the calls failed (retries exhausted, or refused): a reviewer marks;
--   handed_over  not sent to the model (AI marking off, daily budget spent): a reviewer marks.
CREATE TABLE ai_suggestions (
  assignment_id     text NOT NULL REFERENCES attempts (assignment_id) ON DELETE CASCADE,
  institution_id    text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  question_id       text NOT NULL,
  test_id           text NOT NULL REFERENCES tests (id) ON DELETE CASCADE,
  mode              text NOT NULL CHECK (mode IN ('suggest', 'decide')),
  min_confidence    numeric NOT NULL CHECK (min_confidence BETWEEN 0 AND 1),
  max_points        numeric NOT NULL CHECK (max_points > 0),
  status            text NOT NULL CHECK (status IN ('pending', 'suggested', 'failed', 'handed_over')),
  -- [{ criterion, points, maxPoints, rationale }], points already clamped to [0, maxPoints].
  criteria          jsonb,
  points            numeric CHECK (points >= 0),
  confidence        numeric CHECK (confidence BETWEEN 0 AND 1),
  flags             text[] NOT NULL DEFAULT '{}',
  failure_reason    text,
  -- Model calls made for this item (a call over budget is not made and not counted).
  attempts          integer NOT NULL DEFAULT 0,
  -- Provenance of the stored suggestion.
  model             text,
  prompt_version    text,
  request_id        text,
  latency_ms        integer,
  prompt_tokens     integer,
  completion_tokens integer,
  -- The reviewer's mark for the same item, kept beside the model's (agreement figures).
  reviewer_points   numeric CHECK (reviewer_points >= 0),
  reviewer_matches  boolean,
  reviewed_at       timestamptz,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  PRIMARY KEY (assignment_id, question_id)
);
CREATE INDEX ai_suggestions_institution ON ai_suggestions (institution_id, created_at DESC);
-- Agreement per question of a test: only items both the model and a reviewer marked.
CREATE INDEX ai_suggestions_agreement ON ai_suggestions (test_id, question_id, institution_id)
  WHERE status = 'suggested' AND reviewer_points IS NOT NULL;

-- Model calls per institution per UTC day, counted before each call.
CREATE TABLE ai_usage (
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  day            date NOT NULL,
  calls          integer NOT NULL DEFAULT 0 CHECK (calls >= 0),
  PRIMARY KEY (institution_id, day)
);
