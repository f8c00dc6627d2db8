-- Feedback for the candidate, written by whoever marks (a reviewer in the
-- portal, or automation through the operator API) and shown to the candidate
-- only once the result is released (status completed): on the completion
-- page, the report and the partner read's result.feedback. One row per
-- assignment: the overall text and, per question, its text, as
-- [{"questionId", "feedback"}] in the order the candidate saw the questions.
CREATE TABLE candidate_feedback (
  assignment_id  text PRIMARY KEY REFERENCES assignments (id) ON DELETE CASCADE,
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  overall        text,
  questions      jsonb NOT NULL DEFAULT '[]'::jsonb,
  written_by     text,
  updated_at     timestamptz NOT NULL
);

-- A reviewer's draft keeps the feedback they are writing beside their marks
-- (null: a draft saved before feedback existed, or none written).
ALTER TABLE marking_drafts ADD COLUMN feedback jsonb;
