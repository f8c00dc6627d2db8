import type { Queryable } from '../../platform/db.js';
import { toAttemptView, type AttemptView } from './event-deliveries.js';
import type { DeliveryStatus } from './webhook-statuses.js';

/**
 * Reads for people watching their integration (the portal's Webhooks page
 * and Overview): an endpoint's delivery log, newest first with its last
 * attempt, and the institution's delivery health. Scoped to the institution.
 */
export interface DeliveryLogEntry {
  deliveryId: number;
  eventId: string;
  eventType: string;
  eventCreatedAt: Date;
  /** The assignment the event is about; null for `webhook.test`. */
  assignmentId: string | null;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: Date | null;
  lastAttempt: AttemptView | null;
}

export async function listEndpointDeliveries(
  db: Queryable,
  input: { institutionId: string; endpointId: string; status?: DeliveryStatus | undefined; eventType?: string | undefined; beforeId?: number | undefined; limit: number },
): Promise<{ data: DeliveryLogEntry[]; nextBeforeId: number | null }> {
  const { rows } = await db.query(
    `SELECT d.id, d.event_id, e.type, e.created_at AS event_created_at, e.assignment_id, d.status, d.next_attempt_at,
            (SELECT count(*)::int FROM webhook_attempts x WHERE x.delivery_id = d.id) AS attempt_count,
            la.attempted_at, la.status_code, la.error_class, la.duration_ms, la.response_excerpt, la.next_attempt_at AS la_next
       FROM webhook_deliveries d
       JOIN events e ON e.id = d.event_id
       LEFT JOIN LATERAL (
         SELECT attempted_at, status_code, error_class, duration_ms, response_excerpt, next_attempt_at
           FROM webhook_attempts x WHERE x.delivery_id = d.id ORDER BY x.id DESC LIMIT 1) la ON true
      WHERE d.institution_id = $1 AND d.endpoint_id = $2
        AND ($3::text IS NULL OR d.status = $3)
        AND ($4::text IS NULL OR e.type = $4)
        AND ($5::bigint IS NULL OR d.id < $5)
      ORDER BY d.id DESC LIMIT $6`,
    [input.institutionId, input.endpointId, input.status ?? null, input.eventType ?? null, input.beforeId ?? null, input.limit + 1],
  );
  const data = rows.slice(0, input.limit).map((r) => ({
    deliveryId: Number(r.id),
    eventId: r.event_id,
    eventType: r.type,
    eventCreatedAt: r.event_created_at,
    assignmentId: r.assignment_id,
    status: r.status,
    attemptCount: r.attempt_count,
    nextAttemptAt: r.status === 'pending' ? r.next_attempt_at : null,
    lastAttempt: r.attempted_at ? toAttemptView({ ...r, next_attempt_at: r.la_next }) : null,
  }));
  return { data, nextBeforeId: rows.length > input.limit ? data[data.length - 1]!.deliveryId : null };
}

export interface DeliveryHealth {
  /** Deliveries created since `since` that have settled, by outcome. */
  succeeded: number;
  failed: number;
  /** Every delivery still pending, however old. */
  pending: number;
  /** succeeded / (succeeded + failed), null when none has settled. */
  successRate: number | null;
  oldestPending: { eventId: string; eventType: string; endpointId: string; createdAt: Date } | null;
}

/**
 * The health of one mode's deliveries (`livemode`: live, or test mode's
 * sandbox), told by the mode of the endpoint they go to: an endpoint
 * receives its own mode's events only. The portal's Overview asks for live.
 */
export async function deliveryHealth(db: Queryable, institutionId: string, since: Date, livemode: boolean): Promise<DeliveryHealth> {
  const [counts, pending, oldest] = await Promise.all([
    db.query<{ status: DeliveryStatus; n: number }>(
      `SELECT d.status, count(*)::int AS n FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
        WHERE d.institution_id = $1 AND d.created_at >= $2 AND d.status <> 'pending' AND w.livemode = $3 GROUP BY d.status`,
      [institutionId, since, livemode],
    ),
    db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
        WHERE d.institution_id = $1 AND d.status = 'pending' AND w.livemode = $2`,
      [institutionId, livemode],
    ),
    db.query(
      `SELECT d.event_id, e.type, d.endpoint_id, d.created_at
         FROM webhook_deliveries d JOIN events e ON e.id = d.event_id JOIN webhook_endpoints w ON w.id = d.endpoint_id
        WHERE d.institution_id = $1 AND d.status = 'pending' AND w.livemode = $2
        ORDER BY d.created_at LIMIT 1`,
      [institutionId, livemode],
    ),
  ]);
  const n = (s: DeliveryStatus) => counts.rows.find((r) => r.status === s)?.n ?? 0;
  const settled = n('succeeded') + n('failed');
  const o = oldest.rows[0];
  return {
    succeeded: n('succeeded'),
    failed: n('failed'),
    pending: pending.rows[0]!.n,
    successRate: settled > 0 ? n('succeeded') / settled : null,
    oldestPending: o ? { eventId: o.event_id, eventType: o.type, endpointId: o.endpoint_id, createdAt: o.created_at } : null,
  };
}
