-- First step of partitioning the history tables (0033 to 0035,
-- docs/production.md "Partitioned history"), on its own because it scans.
-- A delivery's created_at is its event's created_at (the fan-out writes it
-- so; redeliveries now do too): every delivery of an event lands in the
-- event's partition, so the per-partition UNIQUE (event_id, endpoint_id) is
-- the global one. Deliveries an older redelivery created later than their
-- event are brought in line here; only their rows are locked, and only
-- until this step commits.
UPDATE webhook_deliveries d SET created_at = e.created_at
  FROM events e WHERE e.id = d.event_id AND d.created_at <> e.created_at;
