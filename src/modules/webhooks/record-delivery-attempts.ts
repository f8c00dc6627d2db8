import type { Pool } from '../../platform/db.js';
import { withTransaction } from '../../platform/db.js';
import { disableEndpointRow } from './endpoints-repo.js';
import { noticeEndpointDisabled } from './endpoint-disabled-notice.js';
import { shouldDisableForFailures } from './retry-policy.js';
import type { AutoDisabledReason, DeliveryStatus } from './webhook-statuses.js';

/** The outcome of one HTTP attempt, as the dispatcher hands it over for recording. */
export interface DeliveryAttemptOutcome {
  deliveryId: number;
  generation: number;
  endpointId: string;
  attemptedAt: Date;
  statusCode: number | null;
  errorClass: string | null;
  durationMs: number;
  excerpt: string | null;
  /** The delivery's state after this attempt. */
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  /** The endpoint answered 410 Gone. */
  gone: boolean;
  pauseEndpointUntil: Date | null;
  /** From the claim: whether the endpoint's health record may need clearing on success. */
  endpointUnhealthy: boolean;
}

/**
 * Records a batch of finished attempts. The common case, every attempt a
 * success on an endpoint with nothing to clear, is one statement; anything
 * else takes the full transaction below.
 */
export async function recordOutcomes(pool: Pool, workerId: string, outcomes: DeliveryAttemptOutcome[], now: Date): Promise<void> {
  if (outcomes.length === 0) return;
  if (outcomes.every((o) => o.status === 'succeeded' && !o.endpointUnhealthy)) return recordSuccesses(pool, workerId, outcomes);
  return recordAny(pool, workerId, outcomes, now);
}

/**
 * Successes only: release and settle each delivery (unless a redelivery
 * bumped its generation meanwhile, or its lease was lost to another worker)
 * and append its attempt row, in one statement. The SELECT of the INSERT
 * reads the rows as they were before the UPDATE: only fields it leaves alone.
 */
async function recordSuccesses(pool: Pool, workerId: string, outcomes: DeliveryAttemptOutcome[]): Promise<void> {
  const col = <K extends keyof DeliveryAttemptOutcome>(k: K) => outcomes.map((o) => o[k]);
  await pool.query({
    name: 'webhooks-record-successes',
    text: `WITH t AS (
             SELECT * FROM unnest($1::bigint[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[])
                     AS t(id, generation, attempted_at, status_code, duration_ms, excerpt)),
           settled AS (
             UPDATE webhook_deliveries d SET locked_until = NULL, locked_by = NULL, updated_at = t.attempted_at,
                    status = CASE WHEN d.generation = t.generation THEN 'succeeded' ELSE d.status END,
                    next_attempt_at = CASE WHEN d.generation = t.generation THEN NULL ELSE d.next_attempt_at END
               FROM t WHERE d.id = ANY ($1::bigint[]) AND d.id = t.id AND d.locked_by = $7)
         INSERT INTO webhook_attempts (delivery_id, institution_id, attempted_at, status_code, error_class, duration_ms,
                                       response_excerpt, next_attempt_at, worker_id)
         SELECT d.id, d.institution_id, t.attempted_at, t.status_code, NULL, t.duration_ms, t.excerpt,
                CASE WHEN d.generation = t.generation THEN NULL ELSE d.next_attempt_at END, $7
           FROM t JOIN webhook_deliveries d ON d.id = t.id
          WHERE d.id = ANY ($1::bigint[])
          ORDER BY t.attempted_at, t.id`,
    values: [col('deliveryId'), col('generation'), col('attemptedAt'), col('statusCode'), col('durationMs'), col('excerpt'), workerId],
  });
}

/**
 * Records a batch of finished attempts in one transaction: releases each
 * lease and settles its delivery (unless a redelivery request bumped its
 * generation meanwhile, or the lease was lost to another worker), updates the
 * endpoints' failure run and pause, disables endpoints that answered 410 or
 * have failed for 5 days (failing their pending deliveries), and appends an
 * attempt row for each with the delivery's resulting next attempt time.
 */
async function recordAny(pool: Pool, workerId: string, outcomes: DeliveryAttemptOutcome[], now: Date): Promise<void> {
  const col = <K extends keyof DeliveryAttemptOutcome>(k: K) => outcomes.map((o) => o[k]);
  await withTransaction(pool, async (tx) => {
    // `d.id = ANY ($1)` keeps these on the primary key whatever the planner thinks of the arrays' sizes.
    await tx.query({
      name: 'webhooks-settle',
      // A retry of an endpoint disabled while the attempt was in flight fails instead, as disabling does.
      text: `UPDATE webhook_deliveries d SET locked_until = NULL, locked_by = NULL, updated_at = t.attempted_at,
              status = CASE WHEN d.generation <> t.generation THEN d.status
                            WHEN t.status = 'pending' AND w.status = 'disabled' THEN 'failed' ELSE t.status END,
              next_attempt_at = CASE WHEN d.generation <> t.generation THEN d.next_attempt_at
                                     WHEN w.status = 'disabled' THEN NULL ELSE t.next_at END
         FROM unnest($1::bigint[], $2::int[], $3::text[], $4::timestamptz[], $5::timestamptz[])
              AS t(id, generation, status, next_at, attempted_at), webhook_endpoints w
        WHERE d.id = ANY ($1::bigint[]) AND d.id = t.id AND d.locked_by = $6 AND w.id = d.endpoint_id`,
      values: [col('deliveryId'), col('generation'), col('status'), col('nextAttemptAt'), col('attemptedAt'), workerId],
    });

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
    // Healthy endpoints that only succeeded need no write (the common case).
    for (const [id, e] of byEndpoint) {
      if (e.ok && e.firstFailureAt === null && !e.gone && !outcomes.some((o) => o.endpointId === id && o.endpointUnhealthy)) byEndpoint.delete(id);
    }
    const ids = [...byEndpoint.keys()];
    const eps = [...byEndpoint.values()];
    const { rows: touched } = ids.length === 0 ? { rows: [] } : await tx.query<{ id: string; failing_since: Date | null }>({
      name: 'webhooks-endpoint-health',
      text: `UPDATE webhook_endpoints w SET
          failing_since = CASE WHEN t.ok THEN NULL ELSE COALESCE(w.failing_since, t.first_failure_at) END,
          paused_until = CASE WHEN t.ok THEN NULL WHEN t.pause IS NULL THEN w.paused_until
                              ELSE GREATEST(w.paused_until, t.pause) END
         FROM unnest($1::text[], $2::bool[], $3::timestamptz[], $4::timestamptz[]) AS t(id, ok, first_failure_at, pause)
        WHERE w.id = t.id AND (NOT t.ok OR w.failing_since IS NOT NULL OR w.paused_until IS NOT NULL)
        RETURNING w.id, w.failing_since`,
      values: [ids, eps.map((e) => e.ok), eps.map((e) => e.firstFailureAt), eps.map((e) => e.pause)],
    });
    // Disabled by Assay itself: the institution is told (an event, and its admins by mail) in this transaction.
    const disable = async (endpointId: string, reason: AutoDisabledReason) => {
      const disabled = await disableEndpointRow(tx, endpointId, reason, now);
      if (disabled) await noticeEndpointDisabled(tx, { ...disabled, endpointId, reason, disabledAt: now });
    };
    for (const [id, e] of byEndpoint) {
      if (e.gone) await disable(id, 'gone');
    }
    for (const t of touched) {
      if (!byEndpoint.get(t.id)?.gone && shouldDisableForFailures(t.failing_since, now)) await disable(t.id, 'failing');
    }

    await tx.query({
      name: 'webhooks-attempts',
      text: `INSERT INTO webhook_attempts (delivery_id, institution_id, attempted_at, status_code, error_class, duration_ms,
                                     response_excerpt, next_attempt_at, worker_id)
       SELECT d.id, d.institution_id, t.attempted_at, t.status_code, t.error_class, t.duration_ms, t.excerpt,
              CASE WHEN d.status = 'pending' AND d.locked_by IS NULL THEN d.next_attempt_at END, $8
         FROM unnest($1::bigint[], $2::timestamptz[], $3::int[], $4::text[], $5::int[], $6::text[], $7::int[])
              AS t(delivery_id, attempted_at, status_code, error_class, duration_ms, excerpt, ord)
         JOIN webhook_deliveries d ON d.id = t.delivery_id
        WHERE d.id = ANY ($1::bigint[])
        ORDER BY t.ord`,
      values: [col('deliveryId'), col('attemptedAt'), col('statusCode'), col('errorClass'), col('durationMs'), col('excerpt'),
        outcomes.map((_, i) => i), workerId],
    });
  });
}
