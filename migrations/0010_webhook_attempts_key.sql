-- Webhook attempt rows are only ever read by delivery (the event's delivery
-- log), and ids are unique, so (delivery_id, id) can be the primary key: one
-- index to maintain per recorded attempt instead of two, which the dispatcher
-- pays on every delivery (bench/webhook-delivery.ts).
CREATE UNIQUE INDEX webhook_attempts_key ON webhook_attempts (delivery_id, id);
ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_pkey;
DROP INDEX webhook_attempts_delivery;
ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_pkey PRIMARY KEY USING INDEX webhook_attempts_key;
