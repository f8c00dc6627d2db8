import type { Pool, Queryable } from '../../platform/db.js';
import { withTransaction } from '../../platform/db.js';
import { disableEndpointRow } from './endpoints-repo.js';
import { shouldDisableForFailures } from './retry-policy.js';

/**
 * The dispatcher's SQL: claiming due deliveries and recording attempts.
 *
 * Claim: endpoints that are enabled, not paused, and have due work are
 * walked; each gives at most its free slots (endpointConcurrency minus its
 * rows leased right now, by any process), oldest due first; the rows are
 * locked with FOR UPDATE SKIP LOCKED and leased to this worker. Two workers
 * claiming at the same instant can together exceed an endpoint's limit
 * briefly; they can never claim the same row, since the lease condition is
 * re-checked on the locked row. Cost: one index probe per enabled endpoint.
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
  event: { id: string; type: string; data: Record<string, unknown>; createdAt: Date };
}

const DUE = `d.status = 'pending' AND d.next_attempt_at <= $1 AND (d.locked_until IS NULL OR d.locked_until < $1)`;

export async function claimDeliveries(
  db: Queryable,
  opts: { now: Date; limit: number; workerId: string; leaseMs: number; endpointConcurrency: number },
): Promise<ClaimedDelivery[]> {
  const { rows } = await db.query(
    `WITH eps AS (
       SELECT w.id, $4::int - (SELECT count(*) FROM webhook_deliveries b
                               WHERE b.endpoint_id = w.id AND b.status = 'pending'
                                 AND b.locked_until IS NOT NULL AND b.locked_until >= $1)::int AS free
         FROM webhook_endpoints w
        WHERE w.status = 'enabled' AND (w.paused_until IS NULL OR w.paused_until <= $1)
          AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = w.id AND ${DUE})),
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
         FROM locked WHERE d.id = locked.id
       RETURNING d.id, d.generation, d.attempts, d.endpoint_id, d.event_id, d.institution_id)
     SELECT c.id, c.generation, c.attempts, c.endpoint_id, c.institution_id,
            w.url, w.secret_enc, w.previous_secret_enc, w.previous_secret_expires_at,
            e.id AS event_id, e.type, e.data, e.created_at
       FROM claimed c JOIN webhook_endpoints w ON w.id = c.endpoint_id JOIN events e ON e.id = c.event_id`,
    [opts.now, opts.limit, opts.workerId, opts.endpointConcurrency, opts.leaseMs],
  );
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
    event: { id: r.event_id, type: r.type, data: r.data, createdAt: r.created_at },
  }));
}

export interface AttemptOutcome {
  deliveryId: number;
  generation: number;
  endpointId: string;
  attemptedAt: Date;
  statusCode: number | null;
  errorClass: string | null;
  durationMs: number;
  excerpt: string | null;
  /** The delivery's state after this attempt. */
  status: 'succeeded' | 'pending' | 'failed';
  nextAttemptAt: Date | null;
  /** The endpoint answered 410 Gone. */
  gone: boolean;
  pauseEndpointUntil: Date | null;
}

/**
 * Records a batch of finished attempts in one transaction: releases each
 * lease and settles its delivery (unless a redelivery request bumped its
 * generation meanwhile, or the lease was lost to another worker), updates the
 * endpoints' failure run and pause, disables endpoints that answered 410 or
 * have failed for 5 days (failing their pending deliveries), and appends an
 * attempt row for each with the delivery's resulting next attempt time.
 */
export async function recordOutcomes(pool: Pool, workerId: string, outcomes: AttemptOutcome[], now: Date): Promise<void> {
  if (outcomes.length === 0) return;
  const col = <K extends keyof AttemptOutcome>(k: K) => outcomes.map((o) => o[k]);
  await withTransaction(pool, async (tx) => {
    await tx.query(
      // A retry of an endpoint disabled while the attempt was in flight fails instead, as disabling does.
      `UPDATE webhook_deliveries d SET locked_until = NULL, locked_by = NULL, updated_at = t.attempted_at,
              status = CASE WHEN d.generation <> t.generation THEN d.status
                            WHEN t.status = 'pending' AND w.status = 'disabled' THEN 'failed' ELSE t.status END,
              next_attempt_at = CASE WHEN d.generation <> t.generation THEN d.next_attempt_at
                                     WHEN w.status = 'disabled' THEN NULL ELSE t.next_at END
         FROM unnest($1::bigint[], $2::int[], $3::text[], $4::timestamptz[], $5::timestamptz[])
              AS t(id, generation, status, next_at, attempted_at), webhook_endpoints w
        WHERE d.id = t.id AND d.locked_by = $6 AND w.id = d.endpoint_id`,
      [col('deliveryId'), col('generation'), col('status'), col('nextAttemptAt'), col('attemptedAt'), workerId],
    );

    const byEndpoint = new Map<string, { ok: boolean; lastAt: number; firstFailureAt: Date | null; pause: Date | null; gone: boolean }>();
    for (const o of outcomes) {
      const e = byEndpoint.get(o.endpointId) ?? { ok: false, lastAt: -Infinity, firstFailureAt: null, pause: null, gone: false };
      const ok = o.status === 'succeeded';
      if (o.attemptedAt.getTime() >= e.lastAt) {
        e.ok = ok;
        e.lastAt = o.attemptedAt.getTime();
      }
      if (!ok && (!e.firstFailureAt || o.attemptedAt < e.firstFailureAt)) e.firstFailureAt = o.attemptedAt;
      if (o.pauseEndpointUntil && (!e.pause || o.pauseEndpointUntil > e.pause)) e.pause = o.pauseEndpointUntil;
      e.gone ||= o.gone;
      byEndpoint.set(o.endpointId, e);
    }
    const ids = [...byEndpoint.keys()];
    const eps = [...byEndpoint.values()];
    const { rows: touched } = await tx.query<{ id: string; failing_since: Date | null }>(
      `UPDATE webhook_endpoints w SET
          failing_since = CASE WHEN t.ok THEN NULL ELSE COALESCE(w.failing_since, t.first_failure_at) END,
          paused_until = CASE WHEN t.ok THEN NULL WHEN t.pause IS NULL THEN w.paused_until
                              ELSE GREATEST(w.paused_until, t.pause) END
         FROM unnest($1::text[], $2::bool[], $3::timestamptz[], $4::timestamptz[]) AS t(id, ok, first_failure_at, pause)
        WHERE w.id = t.id AND (NOT t.ok OR w.failing_since IS NOT NULL OR w.paused_until IS NOT NULL)
        RETURNING w.id, w.failing_since`,
      [ids, eps.map((e) => e.ok), eps.map((e) => e.firstFailureAt), eps.map((e) => e.pause)],
    );
    for (const [id, e] of byEndpoint) {
      if (e.gone) await disableEndpointRow(tx, id, 'gone', now);
    }
    for (const t of touched) {
      if (!byEndpoint.get(t.id)?.gone && shouldDisableForFailures(t.failing_since, now)) await disableEndpointRow(tx, t.id, 'failing', now);
    }

    await tx.query(
      `INSERT INTO webhook_attempts (delivery_id, institution_id, attempted_at, status_code, error_class, duration_ms,
                                     response_excerpt, next_attempt_at, worker_id)
       SELECT d.id, d.institution_id, t.attempted_at, t.status_code, t.error_class, t.duration_ms, t.excerpt,
              CASE WHEN d.status = 'pending' AND d.locked_by IS NULL THEN d.next_attempt_at END, $8
         FROM unnest($1::bigint[], $2::timestamptz[], $3::int[], $4::text[], $5::int[], $6::text[], $7::int[])
              AS t(delivery_id, attempted_at, status_code, error_class, duration_ms, excerpt, ord)
         JOIN webhook_deliveries d ON d.id = t.delivery_id
        ORDER BY t.ord`,
      [col('deliveryId'), col('attemptedAt'), col('statusCode'), col('errorClass'), col('durationMs'), col('excerpt'),
        outcomes.map((_, i) => i), workerId],
    );
  });
}
