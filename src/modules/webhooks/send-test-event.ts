import { AppError, notFound } from '../../platform/errors.js';
import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db.js';
import { appendEvent } from '../lifecycle/append-event.js';
import { TEST_EVENT_TYPE } from '../lifecycle/event-types.js';
import { findEndpoint } from './endpoints-repo.js';
import { scheduleDeliveries } from './fan-out.js';

/**
 * `POST /webhook-endpoints/{id}/test`: a `webhook.test` event, stored and
 * delivered to this one endpoint through the normal path (signing, retries,
 * attempt log, events list), whatever the endpoint's event-type filter.
 */
export async function sendTestEvent(ctx: AppContext, institutionId: string, endpointId: string, livemode?: boolean): Promise<{ eventId: string }> {
  const now = ctx.clock.now();
  return withTransaction(ctx.pool, async (tx) => {
    const endpoint = await findEndpoint(tx, institutionId, endpointId, { forUpdate: true, livemode });
    if (!endpoint) throw notFound('webhook endpoint');
    if (endpoint.status !== 'enabled') throw new AppError('invalid_state', 'The endpoint is disabled; enable it before sending a test event.');
    const event = await appendEvent(tx, {
      institutionId,
      assignmentId: null,
      type: TEST_EVENT_TYPE,
      createdAt: now,
      livemode: endpoint.livemode,
      data: { endpointId, message: 'A test event sent on request from the Assay API.' },
    });
    await scheduleDeliveries(tx, { institutionId, livemode: endpoint.livemode, eventId: event.id, eventType: event.type, endpointId, now });
    return { eventId: event.id };
  });
}
