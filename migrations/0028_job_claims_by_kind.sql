-- Workers claim due jobs of their own kinds (docs/scaling.md). With the only
-- claim index on (run_at, id), a worker of one kind walked every due job of
-- the others first: 10,000 auto-submits due at one deadline made each claim
-- of the AI marking worker, or of a batch's top-up, scan all of them. The
-- claim now looks up each of its kinds in this index, whose order is the
-- claim's own (run time, then id), so a claim costs a few index probes per
-- kind whatever waits behind other kinds. It replaces the run-time index
-- for claims; jobs_ready (run_at, id) stays for the metrics' backlog query.
CREATE INDEX jobs_claimable_by_kind ON jobs (kind, run_at, id) WHERE failed_at IS NULL;
DROP INDEX jobs_claimable;
