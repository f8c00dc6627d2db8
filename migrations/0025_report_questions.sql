-- Whether a candidate's report (result.reportUrl, docs/results.md) lists each
-- question's outcome (points awarded of the question's points, in the order the
-- candidate saw them). Off by default: some institutions keep marks per question
-- to themselves. An operator switch, like allow_proctoring_relaxations.
ALTER TABLE institutions ADD COLUMN report_shows_questions boolean NOT NULL DEFAULT false;
