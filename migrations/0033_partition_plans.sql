-- Native range partitioning of the append-only history tables by time
-- (docs/production.md, "Partitioned history"): events, webhook_deliveries,
-- webhook_attempts and audit_log. This first step is instant: the plan of
-- each table and, on each existing table, a CHECK constraint NOT VALID
-- saying every row lies before the boundary the table will cover as its
-- first partition. Adding it takes a lock only for the moment of the
-- catalogue change; 0034 validates it (a scan under SHARE UPDATE EXCLUSIVE,
-- writes go on); 0035 swaps each table for a partitioned parent, attaching
-- the old table without a scan because the validated CHECK proves its range.
--
-- The boundary is the first day of the month after next (UTC): it leaves at
-- least a month between this step and the swap, so no ordinary insert ever
-- fails the CHECK in between.

CREATE TABLE partition_plans (
  parent          text PRIMARY KEY,
  key_column      text NOT NULL,
  -- Uniqueness kept per partition (the parent cannot hold a unique key
  -- without the partition key): each new partition gets these, the old
  -- table keeps its own. Why they still hold across partitions is written
  -- beside each table in docs/production.md.
  partition_keys  text[] NOT NULL,
  -- Where the first (old) partition ends and the monthly ones begin.
  legacy_boundary timestamptz NOT NULL
);

DO $$
DECLARE
  boundary timestamptz := date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '2 months';
  p record;
BEGIN
  INSERT INTO partition_plans (parent, key_column, partition_keys, legacy_boundary) VALUES
    ('events', 'created_at', ARRAY['PRIMARY KEY (id)', 'UNIQUE (assignment_id, sequence)'], boundary),
    ('webhook_deliveries', 'created_at', ARRAY['PRIMARY KEY (id)', 'UNIQUE (event_id, endpoint_id)'], boundary),
    ('webhook_attempts', 'attempted_at', ARRAY['PRIMARY KEY (delivery_id, id)'], boundary),
    ('audit_log', 'at', ARRAY['PRIMARY KEY (id)'], boundary);
  FOR p IN SELECT * FROM partition_plans LOOP
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (%I < %L) NOT VALID',
      p.parent, p.parent || '_legacy_range', p.key_column, p.legacy_boundary);
  END LOOP;
END $$;
