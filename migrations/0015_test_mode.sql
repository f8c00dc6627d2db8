-- Test mode (Stripe-style sandbox): a key is live or test, and every row a
-- partner reaches through a key carries the mode it was made in. A test key
-- sees only test rows, a live key only live rows; rows from before test mode
-- are live. The hot reads stay primary-key lookups: the mode of the one row
-- found is compared in code, so no index needs the column, except the
-- events listing (filtered per mode) and the test-data purge.
ALTER TABLE api_keys ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE assignments ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE events ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE webhook_endpoints ADD COLUMN livemode boolean NOT NULL DEFAULT true;

-- Idempotency keys are scoped per mode as well: one key string used with a
-- live and a test key means two requests.
ALTER TABLE idempotency_keys ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (institution_id, livemode, scope, key);

-- Events listed per (institution, mode), newest first.
DROP INDEX events_listing;
CREATE INDEX events_listing ON events (institution_id, livemode, created_at DESC, id DESC);

-- Test-mode assignments, oldest first: the 30-day purge and the wipe find them without scanning live rows.
CREATE INDEX assignments_test_mode ON assignments (institution_id, created_at) WHERE NOT livemode;
CREATE INDEX assignments_test_created ON assignments (created_at) WHERE NOT livemode;
