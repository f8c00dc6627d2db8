import type { Queryable } from '../../platform/db.js';
import type { DeliveryStatus } from './webhook-statuses.js';

/**
 * The delivery record of one event, per endpoint, with every attempt
 * (shown by `GET /events/{eventId}`). Scoped to the institution.
 */
export interface AttemptView {
  attemptedAt: Date;
  statusCode: number | null;
  errorClass: string | null;
  durationMs: number;
  responseExcerpt: string | null;
  nextAttemptAt: Date | null;
}

export interface DeliveryView {
  endpointId: string;
  url: string;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  attempts: AttemptView[];
}

export async function listEventDeliveries(db: Queryable, institutionId: string, eventId: string): Promise<DeliveryView[]> {
  return (await listDeliveriesOfEvents(db, institutionId, [eventId])).get(eventId) ?? [];
}

/** The deliveries of several events at once (an assignment's timeline), keyed by event id. */
export async function listDeliveriesOfEvents(db: Queryable, institutionId: string, eventIds: string[]): Promise<Map<string, DeliveryView[]>> {
  const out = new Map<string, DeliveryView[]>();
  if (eventIds.length === 0) return out;
  const { rows: deliveries } = await db.query<{ id: number; event_id: string; endpoint_id: string; url: string; status: DeliveryStatus; next_attempt_at: Date | null }>(
    `SELECT d.id, d.event_id, d.endpoint_id, w.url, d.status, d.next_attempt_at
       FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
      WHERE d.institution_id = $1 AND d.event_id = ANY ($2::text[])
      ORDER BY d.created_at, d.id`,
    [institutionId, eventIds],
  );
  if (deliveries.length === 0) return out;
  const { rows: attempts } = await db.query<AttemptRecord & { delivery_id: number }>(
    `SELECT delivery_id, attempted_at, status_code, error_class, duration_ms, response_excerpt, next_attempt_at
       FROM webhook_attempts WHERE institution_id = $1 AND delivery_id = ANY ($2::bigint[]) ORDER BY id`,
    [institutionId, deliveries.map((d) => d.id)],
  );
  for (const d of deliveries) {
    const list = out.get(d.event_id) ?? [];
    list.push({
      endpointId: d.endpoint_id,
      url: d.url,
      status: d.status,
      nextAttemptAt: d.status === 'pending' ? d.next_attempt_at : null,
      attempts: attempts.filter((a) => a.delivery_id === d.id).map(toAttemptView),
    });
    out.set(d.event_id, list);
  }
  return out;
}

/** A webhook_attempts row as pg returns it (the columns AttemptView shows). */
export type AttemptRecord = {
  attempted_at: Date;
  status_code: number | null;
  error_class: string | null;
  duration_ms: number;
  response_excerpt: string | null;
  next_attempt_at: Date | null;
};

export function toAttemptView(a: AttemptRecord): AttemptView {
  return {
    attemptedAt: a.attempted_at,
    statusCode: a.status_code,
    errorClass: a.error_class,
    durationMs: a.duration_ms,
    responseExcerpt: a.response_excerpt,
    nextAttemptAt: a.next_attempt_at,
  };
}
