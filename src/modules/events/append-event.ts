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
}

/** Hooks run inside the same transaction for every appended event (webhook fan-out registers here). */
type EventListener = (tx: Tx, event: StoredEvent) => Promise<void>;
const listeners: EventListener[] = [];

export function onEventAppended(listener: EventListener): void {
  if (!listeners.includes(listener)) listeners.push(listener);
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
  let sequence: number | null = null;
  if (event.assignmentId) {
    const { rows } = await tx.query<{ event_sequence: number }>(
      'UPDATE assignments SET event_sequence = event_sequence + 1 WHERE id = $1 AND institution_id = $2 RETURNING event_sequence',
      [event.assignmentId, event.institutionId],
    );
    if (!rows[0]) throw new Error(`appendEvent: assignment ${event.assignmentId} not found`);
    sequence = rows[0].event_sequence;
  }
  const data = sequence === null ? event.data : { ...event.data, sequence };
  const stored: StoredEvent = {
    id: newId('evt'),
    institutionId: event.institutionId,
    assignmentId: event.assignmentId,
    type: event.type,
    data,
    dataJson: dataText(data, event.rawMembers),
    createdAt: event.createdAt,
  };
  await tx.query(
    // One text for both columns: jsonb for queries, the text for every copy a partner sees. traceparent:
    // the trace of the request or job appending the event, which its deliveries continue.
    `INSERT INTO events (id, institution_id, assignment_id, type, sequence, data, data_json, created_at, traceparent)
     VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $6, $7, $8)`,
    [stored.id, stored.institutionId, stored.assignmentId, stored.type, sequence, stored.dataJson, stored.createdAt, currentTraceparent()],
  );
  for (const listener of listeners) await listener(tx, stored);
  return stored;
}
