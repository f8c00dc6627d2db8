import type { Queryable } from '../../platform/db.js';

/**
 * The dispatcher's claim of due deliveries (recording them: record-delivery-attempts.ts).
 *
 * Claim: endpoints that are enabled and not paused are walked; each gives at
 * most the room the dispatcher allows it (by default endpointConcurrency;
 * less while this process holds some of its deliveries, more for a quick
 * endpoint; an endpoint with no room is not even probed), oldest due first;
 * the rows are locked with FOR UPDATE SKIP LOCKED and leased to this worker.
 * Workers can never claim the same row, since the lease condition is
 * re-checked on the locked row. The per-endpoint limit is per dispatcher
 * process: with N processes an endpoint sees at most N × endpointConcurrency
 * requests at once (counting leased rows in the database instead cost more
 * than the rest of the claim). Cost: one index probe per enabled endpoint
 * with room, which also steps over that endpoint's leased rows.
 */
export interface ClaimedDelivery {
  id: number;
  generation: number;
  attempts: number;
  endpointId: string;
  institutionId: string;
  url: string;
  secretEnc: string;
  previousSecretEnc: string | null;
  previousSecretExpiresAt: Date | null;
  /** The endpoint had a failure run or a pause when claimed: a success must clear it. */
  endpointUnhealthy: boolean;
  /** `dataJson`: the event's data as JSON text; `traceparent`: the trace that appended it (telemetry/trace-context.ts). */
  event: { id: string; type: string; dataJson: string; createdAt: Date; livemode: boolean; traceparent: string | null };
}

const DUE = `d.status = 'pending' AND d.next_attempt_at <= $1 AND (d.locked_until IS NULL OR d.locked_until < $1)`;

export async function claimDeliveries(
  db: Queryable,
  opts: {
    now: Date;
    limit: number;
    workerId: string;
    leaseMs: number;
    endpointConcurrency: number;
    /** Room per endpoint where it differs from endpointConcurrency. */
    room: Map<string, number>;
  },
): Promise<ClaimedDelivery[]> {
  const { rows } = await db.query({
    // Named: prepared once per connection, so the planner's work is not repeated on every claim.
    name: 'webhooks-claim',
    text: `WITH eps AS (
       SELECT w.id, COALESCE(r.n, $4::int) AS free
         FROM webhook_endpoints w LEFT JOIN unnest($6::text[], $7::int[]) AS r(id, n) ON r.id = w.id
        WHERE w.status = 'enabled' AND (w.paused_until IS NULL OR w.paused_until <= $1)),
     candidates AS (
       SELECT c.id FROM eps CROSS JOIN LATERAL (
         SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
          WHERE d.endpoint_id = eps.id AND ${DUE}
          ORDER BY d.next_attempt_at LIMIT GREATEST(eps.free, 0)) c
        ORDER BY c.next_attempt_at LIMIT $2),
     locked AS (
       SELECT d.id FROM webhook_deliveries d
        WHERE d.id IN (SELECT id FROM candidates) AND ${DUE}
        FOR UPDATE SKIP LOCKED),
     claimed AS (
       UPDATE webhook_deliveries d
          SET locked_until = $1::timestamptz + make_interval(secs => $5::double precision / 1000),
              locked_by = $3, attempts = d.attempts + 1, updated_at = $1
        WHERE d.id = ANY (ARRAY(SELECT id FROM locked))
       RETURNING d.id, d.generation, d.attempts, d.endpoint_id, d.event_id, d.institution_id)
     SELECT c.id, c.generation, c.attempts, c.endpoint_id, c.institution_id,
            w.url, w.secret_enc, w.previous_secret_enc, w.previous_secret_expires_at,
            (w.failing_since IS NOT NULL OR w.paused_until IS NOT NULL) AS unhealthy,
            e.id AS event_id, e.type, COALESCE(e.data_json, e.data::text) AS data_json, e.created_at, e.livemode, e.traceparent
       FROM claimed c JOIN webhook_endpoints w ON w.id = c.endpoint_id JOIN events e ON e.id = c.event_id`,
    values: [opts.now, opts.limit, opts.workerId, opts.endpointConcurrency, opts.leaseMs, [...opts.room.keys()], [...opts.room.values()]],
  });
  return rows.map((r) => ({
    id: r.id,
    generation: r.generation,
    attempts: r.attempts,
    endpointId: r.endpoint_id,
    institutionId: r.institution_id,
    url: r.url,
    secretEnc: r.secret_enc,
    previousSecretEnc: r.previous_secret_enc,
    previousSecretExpiresAt: r.previous_secret_expires_at,
    endpointUnhealthy: r.unhealthy,
    event: { id: r.event_id, type: r.type, dataJson: r.data_json, createdAt: r.created_at, livemode: r.livemode, traceparent: r.traceparent },
  }));
}

/** Hands back claimed deliveries that were never attempted (a stopping dispatcher), so they need not wait for their leases. */
export async function releaseClaims(db: Queryable, workerId: string, ids: number[]): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET locked_until = NULL, locked_by = NULL, attempts = attempts - 1
      WHERE id = ANY ($1::bigint[]) AND locked_by = $2`,
    [ids, workerId],
  );
}
