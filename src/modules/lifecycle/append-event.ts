import { newId } from '../../platform/ids.js';
import type { Tx } from '../../platform/db.js';
import { currentTraceparent } from '../../platform/telemetry/trace-context.js';

/**
 * The outbox writer: an event row is inserted in the caller's transaction,
 * together with the state change that causes it, so an event exists exactly
 * when its change committed. `data.sequence` increases per assignment.
 */
export interface NewEvent {
  institutionId: string;
  assignmentId: string | null;
  type: string;
  /** Event data without `sequence`; it is assigned here. */
  data: Record<string, unknown>;
  /**
   * Members of `data` to write as this JSON text instead of serialising the
   * value (the metadata exactly as the partner sent it), so the stored text,
   * the webhook body and the events API keep the partner's key order.
   */
  rawMembers?: Record<string, string>;
  createdAt: Date;
  /**
   * The event's mode, for an event without an assignment (the mode of the
   * webhook endpoint it concerns). An assignment's event always takes its
   * assignment's mode, read in the same statement that numbers it.
   */
  livemode?: boolean;
}

export interface StoredEvent {
  id: string;
  institutionId: string;
  assignmentId: string | null;
  type: string;
  data: Record<string, unknown>;
  /** `data` as the JSON text stored in events.data_json. */
  dataJson: string;
  createdAt: Date;
  /** False for a test-mode event: it goes to test-mode endpoints only and is listed to test keys only. */
  livemode: boolean;
}

/**
 * What must be written in an appended event's own transaction besides the
 * event: its webhook deliveries (webhooks/fan-out.ts). This module cannot
 * import the webhooks module (which depends on this one), so each process's
 * composition root connects it at start (server.ts, worker.ts), and appending
 * without it throws: an event nobody would ever be sent is never written.
 */
export type EventFanOut = (tx: Tx, event: StoredEvent) => Promise<void>;
let fanOut: EventFanOut | null = null;

/**
 * Further work of the event's transaction beside the webhook deliveries (an
 * LTI assignment's score post), connected the same way by the entry points.
 * Adding the same function again is a no-op.
 */
const followers = new Set<EventFanOut>();

export function addEventFollower(fn: EventFanOut): void {
  followers.add(fn);
}

export function connectEventFanOut(fn: EventFanOut): void {
  if (fanOut && fanOut !== fn) throw new Error('connectEventFanOut: another fan-out is already connected');
  fanOut = fn;
}

/** `data` as compact JSON text, with the members named in `raw` written as their given text. */
function dataText(data: Record<string, unknown>, raw: Record<string, string> | undefined): string {
  if (!raw) return JSON.stringify(data);
  const members = Object.entries(data)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${JSON.stringify(k)}:${Object.hasOwn(raw, k) ? raw[k] : JSON.stringify(v)}`);
  return `{${members.join(',')}}`;
}

export async function appendEvent(tx: Tx, event: NewEvent): Promise<StoredEvent> {
  if (!fanOut) {
    throw new Error('appendEvent: no webhook fan-out is connected, so this event would never be delivered; call installWebhookFanOut() at process start');
  }
  let sequence: number | null = null;
  let livemode = event.livemode ?? true;
  // A staff member's "Try it" run (docs/authoring.md): its lifecycle goes on, but no event is
  // written, so no webhook is sent and GET /events never lists it.
  let trial = false;
  if (event.assignmentId) {
    const { rows } = await tx.query<{ event_sequence: number; livemode: boolean; trial: boolean }>(
      'UPDATE assignments SET event_sequence = event_sequence + 1 WHERE id = $1 AND institution_id = $2 RETURNING event_sequence, livemode, trial',
      [event.assignmentId, event.institutionId],
    );
    if (!rows[0]) throw new Error(`appendEvent: assignment ${event.assignmentId} not found`);
    sequence = rows[0].event_sequence;
    livemode = rows[0].livemode;
    trial = rows[0].trial;
  }
  // Object.assign, not a spread given a new key, which makes a new hidden class per call (docs/performance.md).
  const data = sequence === null ? event.data : Object.assign({}, event.data, { sequence });
  const stored: StoredEvent = {
    id: newId('evt'),
    institutionId: event.institutionId,
    assignmentId: event.assignmentId,
    type: event.type,
    data,
    dataJson: dataText(data, event.rawMembers),
    createdAt: event.createdAt,
    livemode,
  };
  if (trial) return stored;
  await tx.query(
    // One text for both columns: jsonb for queries, the text for every copy a partner sees. traceparent:
    // the trace of the request or job appending the event, which its deliveries continue.
    `INSERT INTO events (id, institution_id, assignment_id, type, sequence, data, data_json, created_at, traceparent, livemode)
     VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $6, $7, $8, $9)`,
    [stored.id, stored.institutionId, stored.assignmentId, stored.type, sequence, stored.dataJson, stored.createdAt, currentTraceparent(), livemode],
  );
  await fanOut(tx, stored);
  for (const follower of followers) await follower(tx, stored);
  return stored;
}
