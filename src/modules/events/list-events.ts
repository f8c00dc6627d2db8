import { invalid } from '../../platform/errors.js';
import type { Queryable } from '../../platform/db.js';
import { EVENT_RETENTION_MS } from '../lifecycle/event-types.js';
import { envelopeBody, type EventEnvelope } from '../lifecycle/event-envelope.js';

/**
 * The events API's reads. Events are listed newest first for 30 days
 * (older ones are purged by the maintenance job and hidden even before it
 * runs). Pagination is by cursor, Stripe-style: `startingAfter` is the id of
 * the last event of the previous page, so pages stay stable while new events
 * arrive. Each event comes back as the exact JSON text of its envelope, the
 * very bytes of its webhook body (event-envelope.ts), for the route to send.
 */
export interface ListEventsInput {
  institutionId: string;
  /** The key's mode: only events of that mode are listed. */
  livemode: boolean;
  limit: number;
  startingAfter?: string;
  type?: string;
  assignmentId?: string;
  now: Date;
}

interface EventRow {
  id: string;
  type: string;
  data_json: string;
  created_at: Date;
  livemode: boolean;
}

/** Events written before data_json existed fall back to the jsonb's text, as their webhooks did. */
const COLUMNS = 'id, type, COALESCE(data_json, data::text) AS data_json, created_at, livemode';

const envelope = (r: EventRow): string => envelopeBody({ id: r.id, type: r.type, createdAt: r.created_at, livemode: r.livemode, dataJson: r.data_json });

export async function listEvents(db: Queryable, input: ListEventsInput): Promise<{ data: string[]; hasMore: boolean }> {
  const cutoff = new Date(input.now.getTime() - EVENT_RETENTION_MS);
  let cursor: { createdAt: Date; id: string } | null = null;
  if (input.startingAfter) {
    const { rows } = await db.query<{ created_at: Date }>(
      'SELECT created_at FROM events WHERE institution_id = $1 AND id = $2 AND created_at >= $3 AND livemode = $4',
      [input.institutionId, input.startingAfter, cutoff, input.livemode],
    );
    if (!rows[0]) throw invalid('startingAfter', 'is not the id of one of your events');
    cursor = { createdAt: rows[0].created_at, id: input.startingAfter };
  }
  const { rows } = await db.query<EventRow>(
    `SELECT ${COLUMNS} FROM events
      WHERE institution_id = $1 AND livemode = $8 AND created_at >= $2
        AND ($3::text IS NULL OR type = $3)
        AND ($4::text IS NULL OR assignment_id = $4)
        AND ($5::timestamptz IS NULL OR (created_at, id) < ($5, $6::text))
      ORDER BY created_at DESC, id DESC
      LIMIT $7`,
    [input.institutionId, cutoff, input.type ?? null, input.assignmentId ?? null, cursor?.createdAt ?? null, cursor?.id ?? null, input.limit + 1, input.livemode],
  );
  return { data: rows.slice(0, input.limit).map(envelope), hasMore: rows.length > input.limit };
}

/**
 * One event of the institution (its envelope's JSON text), or null when
 * missing, another tenant's, of the other mode than `livemode` (when given),
 * or past retention.
 */
export async function findEvent(db: Queryable, institutionId: string, eventId: string, now: Date, livemode?: boolean): Promise<string | null> {
  const { rows } = await db.query<EventRow>(
    `SELECT ${COLUMNS} FROM events WHERE institution_id = $1 AND id = $2 AND created_at >= $3 AND ($4::boolean IS NULL OR livemode = $4)`,
    [institutionId, eventId, new Date(now.getTime() - EVENT_RETENTION_MS), livemode ?? null],
  );
  return rows[0] ? envelope(rows[0]) : null;
}

/** Every retained event of one assignment, in sequence order (the portal's assignment timeline). */
export async function listAssignmentEvents(db: Queryable, institutionId: string, assignmentId: string, now: Date): Promise<EventEnvelope[]> {
  const { rows } = await db.query<EventRow>(
    `SELECT ${COLUMNS} FROM events
      WHERE institution_id = $1 AND assignment_id = $2 AND created_at >= $3
      ORDER BY created_at, sequence LIMIT 500`,
    [institutionId, assignmentId, new Date(now.getTime() - EVENT_RETENTION_MS)],
  );
  return rows.map((r) => JSON.parse(envelope(r)) as EventEnvelope);
}
