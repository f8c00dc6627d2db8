-- The swap (after 0033 and 0034): each history table becomes the first
-- partition, [MINVALUE, legacy_boundary), of a new range-partitioned parent
-- of the same name. Every statement here is a catalogue change: the
-- validated CHECK proves the old table's range, so ATTACH does not scan it,
-- and the indexes and foreign keys the parent needs are the old table's own,
-- attached rather than rebuilt. The ACCESS EXCLUSIVE locks this takes are
-- held for milliseconds (measured in docs/production.md).
--
-- Keys. A partitioned table's unique keys must contain the partition key,
-- and the old table holds no such index (building one would block writes
-- for the length of the build). So uniqueness is kept per partition
-- (partition_plans.partition_keys) and holds globally because: event ids
-- are 22 random base62 characters; deliveries, attempts and audit entries
-- take ids from one sequence each; an event's sequence comes from its
-- assignment's counter, under the assignment row's lock; every delivery of
-- an event shares the event's created_at, so one partition holds them all.
-- For the same reason no foreign key can point at these tables: the two that
-- did (deliveries -> events, attempts -> deliveries) become the triggers
-- below, which delete the same rows ON DELETE CASCADE deleted. Rows are only
-- ever inserted with their parent row in hand (a delivery in its event's
-- transaction or after reading the event; an attempt for a claimed delivery).

ALTER TABLE partition_plans ADD COLUMN storage_options text;
UPDATE partition_plans SET storage_options = 'fillfactor = 70' WHERE parent = 'webhook_deliveries';

-- A new partition for [p_from, p_to): made apart, filled with the rows of that
-- range that landed in the DEFAULT partition (moved, not copied), given the
-- per-partition keys, then attached (the parent's indexes, foreign keys and
-- triggers come with it). Nothing to do when it exists. Returns the rows moved.
CREATE FUNCTION assay_create_partition(p_parent text, p_from timestamptz, p_to timestamptz) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  plan partition_plans%ROWTYPE;
  part text := p_parent || '_p' || to_char(p_from AT TIME ZONE 'UTC', 'YYYY_MM');
  deflt text := p_parent || '_default';
  k text;
  moved bigint := 0;
BEGIN
  SELECT * INTO STRICT plan FROM partition_plans WHERE parent = p_parent;
  IF to_regclass(part) IS NOT NULL THEN RETURN 0; END IF;
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, p_parent);
  IF plan.storage_options IS NOT NULL THEN EXECUTE format('ALTER TABLE %I SET (%s)', part, plan.storage_options); END IF;
  FOREACH k IN ARRAY plan.partition_keys LOOP
    EXECUTE format('ALTER TABLE %I ADD %s', part, k);
  END LOOP;
  IF to_regclass(deflt) IS NOT NULL THEN
    -- The rows move between partitions of one table: the cascade triggers must not see a delete.
    PERFORM set_config('assay.partition_move', 'on', true);
    EXECUTE format('WITH m AS (DELETE FROM %I WHERE %I >= $1 AND %I < $2 RETURNING *) INSERT INTO %I SELECT * FROM m',
      deflt, plan.key_column, plan.key_column, part) USING p_from, p_to;
    GET DIAGNOSTICS moved = ROW_COUNT;
    PERFORM set_config('assay.partition_move', 'off', true);
  END IF;
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', p_parent, part, p_from, p_to);
  RETURN moved;
END $$;

CREATE FUNCTION assay_create_default_partition(p_parent text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  plan partition_plans%ROWTYPE;
  k text;
BEGIN
  SELECT * INTO STRICT plan FROM partition_plans WHERE parent = p_parent;
  EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', p_parent || '_default', p_parent);
  IF plan.storage_options IS NOT NULL THEN EXECUTE format('ALTER TABLE %I SET (%s)', p_parent || '_default', plan.storage_options); END IF;
  FOREACH k IN ARRAY plan.partition_keys LOOP
    EXECUTE format('ALTER TABLE %I ADD %s', p_parent || '_default', k);
  END LOOP;
END $$;

CREATE FUNCTION assay_partition_swap(p_parent text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  plan partition_plans%ROWTYPE;
  legacy text := p_parent || '_legacy';
  r record;
BEGIN
  SELECT * INTO STRICT plan FROM partition_plans WHERE parent = p_parent;
  EXECUTE format('ALTER TABLE %I RENAME TO %I', p_parent, legacy);
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMMENTS) PARTITION BY RANGE (%I)',
    p_parent, legacy, plan.key_column);
  EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', p_parent, p_parent || '_legacy_range');
  -- The old table's plain indexes become the parent's (same names): created on
  -- the still empty parent, they find their twins on the old table at ATTACH
  -- and adopt them instead of building.
  FOR r IN SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def
             FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE i.indrelid = legacy::regclass AND NOT i.indisunique LOOP
    EXECUTE format('ALTER INDEX %I RENAME TO %I', r.name, r.name || '_legacy');
    EXECUTE regexp_replace(r.def, ' ON \S+ USING ', format(' ON %I USING ', p_parent));
  END LOOP;
  -- Its foreign keys likewise, adopted at ATTACH without validating again.
  FOR r IN SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = legacy::regclass AND contype = 'f' LOOP
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I %s', p_parent, r.conname, r.def);
  END LOOP;
  -- A serial id's sequence belongs to the parent now: dropping the old partition must not drop it.
  FOR r IN SELECT a.attname, pg_get_serial_sequence(legacy, a.attname) AS seq FROM pg_attribute a
            WHERE a.attrelid = legacy::regclass AND a.attnum > 0 AND NOT a.attisdropped LOOP
    IF r.seq IS NOT NULL THEN EXECUTE format('ALTER SEQUENCE %s OWNED BY %I.%I', r.seq, p_parent, r.attname); END IF;
  END LOOP;
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)', p_parent, legacy, plan.legacy_boundary);
  EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', legacy, p_parent || '_legacy_range');
  PERFORM assay_create_default_partition(p_parent);
  PERFORM assay_create_partition(p_parent, plan.legacy_boundary, plan.legacy_boundary + interval '1 month');
END $$;

-- The foreign keys between these tables go first (see above), then the tables
-- in the order writers lock them: events, deliveries, attempts.
ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_delivery_id_fkey;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_id_fkey;
SELECT assay_partition_swap('events');
SELECT assay_partition_swap('webhook_deliveries');
SELECT assay_partition_swap('webhook_attempts');
SELECT assay_partition_swap('audit_log');

-- ON DELETE CASCADE, as triggers: deleting an event (a test-data wipe, an
-- assignment's or institution's cascade) deletes its deliveries, and a
-- delivery its attempts. Dropped partitions fire nothing: the retention
-- drops each table's partitions itself (modules/events/partition-retention.ts).
CREATE FUNCTION assay_delete_event_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('assay.partition_move', true) = 'on' THEN RETURN NULL; END IF;
  DELETE FROM webhook_deliveries WHERE event_id = OLD.id;
  RETURN NULL;
END $$;
CREATE TRIGGER events_delete_deliveries AFTER DELETE ON events FOR EACH ROW EXECUTE FUNCTION assay_delete_event_deliveries();

CREATE FUNCTION assay_delete_delivery_attempts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('assay.partition_move', true) = 'on' THEN RETURN NULL; END IF;
  DELETE FROM webhook_attempts WHERE delivery_id = OLD.id;
  RETURN NULL;
END $$;
CREATE TRIGGER deliveries_delete_attempts AFTER DELETE ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION assay_delete_delivery_attempts();
