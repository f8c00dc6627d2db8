import type { StoredEvent } from './append-event.js';
import type { EventType } from './event-types.js';

/**
 * The event as a partner sees it, identical in a webhook body and in the
 * events API: `{ id, type, timestamp, data }`. For assignment events `data`
 * holds partnerAssignmentId, externalUserId, testId, status (the assignment's
 * status right after the change), metadata, sequence (increasing per
 * assignment) and, by type, `score` or `violation`.
 */
export interface EventEnvelope {
  id: string;
  type: EventType;
  timestamp: string;
  data: Record<string, unknown>;
}

export function toEnvelope(event: Pick<StoredEvent, 'id' | 'type' | 'data' | 'createdAt'>): EventEnvelope {
  // Stored types are only ever written from the closed list.
  return { id: event.id, type: event.type as EventType, timestamp: event.createdAt.toISOString(), data: event.data };
}

/**
 * The exact bytes of a webhook body (signed as they are sent), from the
 * stored data as JSON text: the dispatcher hands PostgreSQL's text of the
 * jsonb straight through instead of parsing and re-serialising it.
 */
export function envelopeBody(event: { id: string; type: string; createdAt: Date; dataJson: string }): string {
  return `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"timestamp":"${event.createdAt.toISOString()}","data":${event.dataJson}}`;
}
