-- Issue 24: results. The item statistics read the completed attempts of one
-- institution and one test version (src/modules/results/statistics-repo.ts);
-- this index finds them without walking the institution's other assignments.
CREATE INDEX assignments_completed_by_version ON assignments (institution_id, test_version_id, livemode) WHERE status = 'completed';
