-- Validates the CHECK constraints 0033 added: a scan of each table under
-- SHARE UPDATE EXCLUSIVE, which lets reads and writes go on (each migration
-- runs in its own transaction, so nothing heavier is held meanwhile).
ALTER TABLE events VALIDATE CONSTRAINT events_legacy_range;
ALTER TABLE webhook_deliveries VALIDATE CONSTRAINT webhook_deliveries_legacy_range;
ALTER TABLE webhook_attempts VALIDATE CONSTRAINT webhook_attempts_legacy_range;
ALTER TABLE audit_log VALIDATE CONSTRAINT audit_log_legacy_range;
