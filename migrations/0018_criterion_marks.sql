-- Criterion marks: a question with marking criteria is marked per criterion,
-- and the mark's points are the sum of the criteria's. `criteria` holds
-- [{ "criterion", "points", "comment" }] in the question's criterion order;
-- null for a mark without criteria (every mark made before this migration,
-- auto marks, and questions marked with one points box), which keeps working.
ALTER TABLE marks ADD COLUMN criteria jsonb;
