import type { Queryable, Tx } from '../../platform/db.js';
import { connectEventFanOut, type StoredEvent } from '../lifecycle/append-event.js';
import { TEST_EVENT_TYPE } from '../lifecycle/event-types.js';

/**
 * Fan-out: for every appended event, one pending delivery per enabled
 * endpoint of the event's institution and mode (test-mode events go to
 * test-mode endpoints only, live to live) that subscribes to its type, written
 * in the event's own transaction (the outbox), so a committed event always
 * has its deliveries and a rolled-back one never has. NOTIFY (delivered on
 * commit) wakes the dispatchers within milliseconds; their poll covers a
 * missed notification.
 */
export const WEBHOOKS_CHANNEL = 'assay_webhooks';

/** An arbitrary constant: the transaction lock namespace of scheduleDeliveries (one lock per event). */
const SCHEDULE_LOCK = 727_274_003;

const matchesType = '(w.event_types IS NULL OR $3 = ANY (w.event_types))';

async function fanOut(tx: Tx, event: StoredEvent): Promise<void> {
  // webhook.test goes to the one endpoint it was requested for (send-test-event.ts).
  if (event.type === TEST_EVENT_TYPE) return;
  await tx.query(
    `WITH ins AS (
       INSERT INTO webhook_deliveries (institution_id, event_id, endpoint_id, status, next_attempt_at, created_at, updated_at)
       SELECT w.institution_id, $2, w.id, 'pending', $4, $4, $4
         FROM webhook_endpoints w
        WHERE w.institution_id = $1 AND w.livemode = $6 AND w.status = 'enabled' AND ${matchesType}
       RETURNING 1)
     SELECT pg_notify($5, '') FROM (SELECT count(*) AS n FROM ins) c WHERE c.n > 0`,
    [event.institutionId, event.id, event.type, event.createdAt, WEBHOOKS_CHANNEL, event.livemode],
  );
}

/** Connects the fan-out to the outbox writer; every process that appends events calls this at start (appendEvent refuses to run without it). */
export function installWebhookFanOut(): void {
  connectEventFanOut(fanOut);
}

/**
 * (Re)schedules an event for immediate delivery to enabled endpoints of its
 * institution: one endpoint when `endpointId` is given (whatever its
 * subscription), otherwise every endpoint subscribed to the event's type.
 * An existing delivery is reset to pending with a fresh retry schedule; its
 * attempt history stays. Returns the endpoint ids scheduled.
 *
 * A new delivery takes its event's created_at, as the fan-out's do, so it
 * lives in the event's partition, where UNIQUE (event_id, endpoint_id) holds
 * (the partitioned table has no table-wide unique key for ON CONFLICT to
 * use, docs/production.md). Two schedules of one event are serialised by a
 * transaction lock on the event, so the update-or-insert never races itself.
 */
export async function scheduleDeliveries(
  db: Queryable,
  input: { institutionId: string; livemode: boolean; eventId: string; eventType: string; endpointId?: string; now: Date },
): Promise<string[]> {
  await db.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [SCHEDULE_LOCK, input.eventId]);
  const { rows } = await db.query<{ endpoint_id: string }>(
    `WITH targets AS (
       SELECT w.id, w.institution_id FROM webhook_endpoints w
        WHERE w.institution_id = $1 AND w.livemode = $6 AND w.status = 'enabled'
          AND (CASE WHEN $5::text IS NULL THEN ${matchesType} ELSE w.id = $5 END)),
     reset AS (
       UPDATE webhook_deliveries d
          SET status = 'pending', attempts = 0, next_attempt_at = $4, generation = d.generation + 1, updated_at = $4
         FROM targets t WHERE d.event_id = $2 AND d.endpoint_id = t.id
       RETURNING d.endpoint_id),
     added AS (
       INSERT INTO webhook_deliveries (institution_id, event_id, endpoint_id, status, next_attempt_at, created_at, updated_at)
       SELECT t.institution_id, $2, t.id, 'pending', $4, e.created_at, $4
         FROM targets t JOIN events e ON e.id = $2 AND e.institution_id = $1
        WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = $2 AND d.endpoint_id = t.id)
       RETURNING endpoint_id)
     SELECT endpoint_id FROM reset UNION ALL SELECT endpoint_id FROM added`,
    [input.institutionId, input.eventId, input.eventType, input.now, input.endpointId ?? null, input.livemode],
  );
  if (rows.length > 0) await db.query('SELECT pg_notify($1, $2)', [WEBHOOKS_CHANNEL, '']);
  return rows.map((r) => r.endpoint_id);
}
