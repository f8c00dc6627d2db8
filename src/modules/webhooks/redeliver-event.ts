import { AppError, notFound } from '../../platform/errors.js';
import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db.js';
import { EVENT_RETENTION_MS, TEST_EVENT_TYPE } from '../lifecycle/event-types.js';
import { findEndpoint } from './endpoints-repo.js';
import { scheduleDeliveries } from './fan-out.js';

/**
 * `POST /events/{eventId}/redeliver`: sends a stored event again, now, with a
 * fresh retry schedule. To one endpoint when `endpointId` is given (it must be
 * enabled), otherwise to every enabled endpoint subscribed to the event's type
 * (a `webhook.test` event: to the endpoint it was sent to). The same
 * `webhook-id` is used, so a receiver that already processed it can dedupe.
 */
export async function redeliverEvent(
  ctx: AppContext,
  institutionId: string,
  eventId: string,
  endpointId: string | undefined,
  /** A partner key's mode: an event of the other mode is not found. Staff pass nothing. */
  livemode?: boolean,
): Promise<{ eventId: string; endpointIds: string[] }> {
  const now = ctx.clock.now();
  return withTransaction(ctx.pool, async (tx) => {
    const { rows } = await tx.query<{ type: string; data: Record<string, unknown>; livemode: boolean }>(
      'SELECT type, data, livemode FROM events WHERE institution_id = $1 AND id = $2 AND created_at >= $3 AND ($4::boolean IS NULL OR livemode = $4)',
      [institutionId, eventId, new Date(now.getTime() - EVENT_RETENTION_MS), livemode ?? null],
    );
    const event = rows[0];
    if (!event) throw notFound('event');
    let target = endpointId;
    if (target !== undefined) {
      // An event goes only to endpoints of its own mode.
      const endpoint = await findEndpoint(tx, institutionId, target, { livemode: event.livemode });
      if (!endpoint) throw notFound('webhook endpoint');
      if (endpoint.status !== 'enabled') throw new AppError('invalid_state', 'The endpoint is disabled; enable it before redelivering to it.');
    } else if (event.type === TEST_EVENT_TYPE) {
      target = String(event.data.endpointId);
    }
    const endpointIds = await scheduleDeliveries(tx, { institutionId, livemode: event.livemode, eventId, eventType: event.type, endpointId: target, now });
    return { eventId, endpointIds };
  });
}
