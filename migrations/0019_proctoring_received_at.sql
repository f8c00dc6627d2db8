-- The server's clock when a recording segment or snapshot arrived, kept
-- beside the page's own capture time (started_at / taken_at), so a reviewer
-- can see both and a stamp the page made up stands out.
--
-- Added without a default first: a default on ADD COLUMN would stamp every
-- existing row with this migration's time. Existing rows take their
-- created_at, which has always been the server's clock at the insert (the
-- same moment); new rows get now() unless the insert names the time.
ALTER TABLE recording_segments ADD COLUMN received_at timestamptz;
UPDATE recording_segments SET received_at = created_at WHERE received_at IS NULL;
ALTER TABLE recording_segments ALTER COLUMN received_at SET DEFAULT now();

ALTER TABLE proctoring_snapshots ADD COLUMN received_at timestamptz;
UPDATE proctoring_snapshots SET received_at = created_at WHERE received_at IS NULL;
ALTER TABLE proctoring_snapshots ALTER COLUMN received_at SET DEFAULT now();
