import { notFound } from '../../platform/errors.js';
import type { AppContext } from '../../platform/context.js';
import { listEventDeliveries, type DeliveryView } from '../webhooks/event-deliveries.js';
import { findEvent } from './list-events.js';

/**
 * `GET /events/{eventId}`: the event's envelope as the JSON text its webhook
 * carries, and per endpoint its delivery state and every attempt.
 */
export async function getEventWithDeliveries(
  ctx: AppContext,
  institutionId: string,
  eventId: string,
  livemode?: boolean,
): Promise<{ envelope: string; deliveries: DeliveryView[] }> {
  const envelope = await findEvent(ctx.pool, institutionId, eventId, ctx.clock.now(), livemode);
  if (!envelope) throw notFound('event');
  return { envelope, deliveries: await listEventDeliveries(ctx.pool, institutionId, eventId) };
}
