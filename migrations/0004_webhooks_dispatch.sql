-- Dispatcher tuning after measuring (bench/webhook-delivery.ts):
-- * The per-endpoint concurrency limit is counted by each dispatcher process
--   in memory, so the index of leased rows is no longer read. Without it, a
--   claim (which sets only locked_until, locked_by, attempts, updated_at)
--   touches no indexed column and can be a HOT update.
-- * Free space on each page for those HOT updates.
DROP INDEX webhook_deliveries_leased;
ALTER TABLE webhook_deliveries SET (fillfactor = 70);
-- Attempts go with their delivery (ON DELETE CASCADE from the 30-day purge of
-- events); nothing looks them up by time, so that index only cost inserts.
DROP INDEX webhook_attempts_time;
