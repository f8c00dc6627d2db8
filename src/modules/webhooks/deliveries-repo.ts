import type { Queryable } from '../../platform/db.js';

/**
 * The dispatcher's claim of due deliveries (recording them: record-delivery-attempts.ts).
 *
 * Claim (one statement, the function webhook_claim in
 * migrations/0029_webhook_endpoint_leases.sql): the enabled, unpaused
 * endpoints with a due delivery and room in this process (by default
 * endpointConcurrency; less while this process holds some of its
 * deliveries, more for a quick endpoint), oldest due first, are locked for
 * the claim with a per-endpoint advisory lock (one another dispatcher is
 * claiming at that moment is skipped until the next claim); then each
 * endpoint's live leases, from every process, are counted, and each gives
 * at most what is left of endpointConcurrency across all processes (its
 * whole room in this process while no other process holds a lease on it);
 * the rows are locked with FOR UPDATE SKIP LOCKED and leased to this worker.
 * Workers can never claim the same row, since the lease condition is
 * re-checked on the locked row. So an endpoint sees at most
 * endpointConcurrency requests at once whatever the number of dispatcher
 * processes (docs/webhooks.md). Cost: per endpoint with room, two index
 * probes (its oldest due row, its leased rows) and a lock.
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

export async function claimDeliveries(
  db: Queryable,
  opts: {
    now: Date;
    limit: number;
    workerId: string;
    leaseMs: number;
    endpointConcurrency: number;
    /** Room per endpoint in this process where it differs from endpointConcurrency. */
    room: Map<string, number>;
  },
): Promise<ClaimedDelivery[]> {
  const { rows } = await db.query({
    // Named: prepared once per connection. The claim itself is webhook_claim() (migrations/0029_webhook_endpoint_leases.sql).
    name: 'webhooks-claim',
    text: `SELECT * FROM webhook_claim($1, $2, $3, $4, $5, $6::text[], $7::int[])`,
    values: [opts.now, opts.limit, opts.workerId, opts.endpointConcurrency, opts.leaseMs, [...opts.room.keys()], [...opts.room.values()]],
  });
  return rows.map((r) => ({
    id: r.delivery_id,
    generation: r.delivery_generation,
    attempts: r.delivery_attempts,
    endpointId: r.delivery_endpoint_id,
    institutionId: r.delivery_institution_id,
    url: r.url,
    secretEnc: r.secret_enc,
    previousSecretEnc: r.previous_secret_enc,
    previousSecretExpiresAt: r.previous_secret_expires_at,
    endpointUnhealthy: r.unhealthy,
    event: { id: r.event_id, type: r.event_type, dataJson: r.data_json, createdAt: r.created_at, livemode: r.livemode, traceparent: r.traceparent },
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
