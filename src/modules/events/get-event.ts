import { notFound } from '../../platform/errors.js';
import type { AppContext } from '../../platform/context.js';
import { listEventDeliveries, type DeliveryView } from '../webhooks/event-deliveries.js';
import type { EventEnvelope } from './event-envelope.js';
import { findEvent } from './list-events.js';

/** `GET /events/{eventId}`: the event and, per endpoint, its delivery state and every attempt. */
export async function getEventWithDeliveries(
  ctx: AppContext,
  institutionId: string,
  eventId: string,
): Promise<EventEnvelope & { deliveries: DeliveryView[] }> {
  const event = await findEvent(ctx.pool, institutionId, eventId, ctx.clock.now());
  if (!event) throw notFound('event');
  return { ...event, deliveries: await listEventDeliveries(ctx.pool, institutionId, eventId) };
}
