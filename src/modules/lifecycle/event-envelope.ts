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
