-- The per-endpoint webhook limit counted across dispatcher processes
-- (src/modules/webhooks/deliveries-repo.ts, docs/webhooks.md).

-- The live leases of an endpoint, counted by every claim: the leased rows of
-- one endpoint, whatever its backlog of due rows. Indexing locked_until
-- makes the claim's update no longer HOT; measured in docs/performance.md.
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (endpoint_id, locked_until) WHERE status = 'pending' AND locked_until IS NOT NULL;

-- One claim, in one round trip. First, each endpoint that has a due delivery
-- and room in the calling process is locked for the rest of the transaction
-- (an advisory lock per endpoint, tried, not waited for: an endpoint another
-- dispatcher is claiming right now is left to the next claim). Then, in a
-- second statement (in READ COMMITTED each statement of a function takes a
-- new snapshot, so it sees every claim committed before the locks were
-- taken; a lock is released only after its transaction's commit is
-- visible), the endpoint's live leases from every process are counted and
-- at most the room left is claimed:
--   * no other process holds a lease on the endpoint: the caller's own room
--     (its limit, plus the look-ahead of a quick endpoint, less what it holds;
--     the caller never runs more than the limit at once);
--   * another process does: the limit less every live lease, the caller's
--     included, so all of them together never run more than the limit.
-- Rows are still locked FOR UPDATE SKIP LOCKED and re-checked, since the
-- recorder and hand-backs update them without the endpoint lock.
CREATE FUNCTION webhook_claim(
  p_now timestamptz, p_limit int, p_worker text, p_endpoint_limit int, p_lease_ms double precision,
  p_room_ids text[], p_room_ns int[]
) RETURNS TABLE (
  delivery_id bigint, delivery_generation int, delivery_attempts int, delivery_endpoint_id text, delivery_institution_id text,
  url text, secret_enc text, previous_secret_enc text, previous_secret_expires_at timestamptz, unhealthy boolean,
  event_id text, event_type text, data_json text, created_at timestamptz, livemode boolean, traceparent text
)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
  held text[];
BEGIN
  held := ARRAY(
    SELECT e.id FROM (
      SELECT w.id, first.next_attempt_at
        FROM webhook_endpoints w
        LEFT JOIN unnest(p_room_ids, p_room_ns) AS r(id, n) ON r.id = w.id
        CROSS JOIN LATERAL (
          SELECT d.next_attempt_at FROM webhook_deliveries d
           WHERE d.endpoint_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= p_now
             AND (d.locked_until IS NULL OR d.locked_until < p_now)
           ORDER BY d.next_attempt_at LIMIT 1) first
       WHERE w.status = 'enabled' AND (w.paused_until IS NULL OR w.paused_until <= p_now)
         AND COALESCE(r.n, p_endpoint_limit) > 0
       ORDER BY first.next_attempt_at LIMIT p_limit) e
     -- After the LIMIT: only the endpoints this claim may use are locked.
     WHERE pg_try_advisory_xact_lock(727274002, hashtext(e.id)));
  IF cardinality(held) = 0 THEN
    RETURN;
  END IF;
  RETURN QUERY
  WITH eps AS (
    SELECT ep.id,
           CASE WHEN l.others = 0 THEN COALESCE(r.n, p_endpoint_limit)
                ELSE LEAST(COALESCE(r.n, p_endpoint_limit), p_endpoint_limit - l.total) END AS free
      FROM unnest(held) AS ep(id)
      -- Checked again in this snapshot: a pause or a disabling recorded since the first statement holds.
      JOIN webhook_endpoints w ON w.id = ep.id AND w.status = 'enabled' AND (w.paused_until IS NULL OR w.paused_until <= p_now)
      LEFT JOIN unnest(p_room_ids, p_room_ns) AS r(id, n) ON r.id = ep.id
      CROSS JOIN LATERAL (
        SELECT count(*)::int AS total, count(*) FILTER (WHERE d.locked_by IS DISTINCT FROM p_worker)::int AS others
          FROM webhook_deliveries d
         WHERE d.endpoint_id = ep.id AND d.status = 'pending' AND d.locked_until IS NOT NULL AND d.locked_until >= p_now) l),
  candidates AS (
    SELECT c.id FROM eps CROSS JOIN LATERAL (
      SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
       WHERE d.endpoint_id = eps.id AND d.status = 'pending' AND d.next_attempt_at <= p_now
         AND (d.locked_until IS NULL OR d.locked_until < p_now)
       ORDER BY d.next_attempt_at LIMIT GREATEST(eps.free, 0)) c
     ORDER BY c.next_attempt_at LIMIT p_limit),
  locked AS (
    SELECT d.id FROM webhook_deliveries d
     WHERE d.id IN (SELECT candidates.id FROM candidates) AND d.status = 'pending' AND d.next_attempt_at <= p_now
       AND (d.locked_until IS NULL OR d.locked_until < p_now)
     FOR UPDATE SKIP LOCKED),
  claimed AS (
    UPDATE webhook_deliveries d
       SET locked_until = p_now + make_interval(secs => p_lease_ms / 1000),
           locked_by = p_worker, attempts = d.attempts + 1, updated_at = p_now
     WHERE d.id = ANY (ARRAY(SELECT locked.id FROM locked))
    RETURNING d.id, d.generation, d.attempts, d.endpoint_id, d.event_id, d.institution_id)
  -- Joined here, in the snapshot that saw the claimed rows (and so their events).
  SELECT c.id, c.generation, c.attempts, c.endpoint_id, c.institution_id,
         w.url, w.secret_enc, w.previous_secret_enc, w.previous_secret_expires_at,
         (w.failing_since IS NOT NULL OR w.paused_until IS NOT NULL),
         e.id, e.type, COALESCE(e.data_json, e.data::text), e.created_at, e.livemode, e.traceparent
    FROM claimed c JOIN webhook_endpoints w ON w.id = c.endpoint_id JOIN events e ON e.id = c.event_id;
END;
$$;
