import type { NewEvent } from './append-event.js';
import type { AssignmentEventType } from './event-types.js';
import type { AssignmentStatus } from './state-machine.js';

/**
 * The event as a partner sees it, identical in a webhook body and in the
 * events API: `{ id, type, timestamp, livemode, data }` (`livemode` false for
 * an event of test mode). For assignment events `data`
 * holds partnerAssignmentId, externalUserId, testId, status (the assignment's
 * status right after the change), metadata (as the partner sent it),
 * sequence (increasing per assignment) and, by type, `score` or `violation`.
 *
 * One function writes the envelope's text, from the event data's stored JSON
 * text, for both: the dispatcher signs and sends these bytes, and the events
 * API returns the same bytes, without parsing and re-serialising the data.
 */
/** The envelope parsed, for pages that show events (the portal's assignment timeline). */
export interface EventEnvelope {
  id: string;
  type: string;
  timestamp: string;
  livemode: boolean;
  data: Record<string, unknown>;
}

export function envelopeBody(event: { id: string; type: string; createdAt: Date; livemode: boolean; dataJson: string }): string {
  return `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"timestamp":"${event.createdAt.toISOString()}","livemode":${event.livemode},"data":${event.dataJson}}`;
}

/**
 * An assignment event as appendEvent takes it: the envelope's data common to
 * every assignment event (partnerAssignmentId, externalUserId, testId, the
 * status after the change, the partner's metadata as sent) followed by the
 * type's own members (`extra`). Used by the transition writer and by
 * proctoring's events, so the two cannot disagree on the data's shape or order.
 */
export interface EventAssignment {
  id: string;
  institutionId: string;
  externalUserId: string;
  testId: string;
  metadata: Record<string, unknown> | null;
  /** The metadata as the partner sent it (see assignments.metadata_json). */
  metadataJson: string;
}

export function assignmentEvent(
  a: EventAssignment,
  e: { type: AssignmentEventType; status: AssignmentStatus; extra: Record<string, unknown>; createdAt: Date },
): NewEvent {
  return {
    institutionId: a.institutionId,
    assignmentId: a.id,
    type: e.type,
    createdAt: e.createdAt,
    data: {
      partnerAssignmentId: a.id,
      externalUserId: a.externalUserId,
      testId: a.testId,
      status: e.status,
      metadata: a.metadata ?? {},
      ...e.extra,
    },
    rawMembers: { metadata: a.metadataJson },
  };
}
