import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { partnerOf } from '../institutions/partner-auth.js';
import { getEventWithDeliveries } from './get-event.js';
import { listEvents } from './list-events.js';
import { redeliverEvent } from '../webhooks/redeliver-event.js';
import { EventDetail, EventList, EventParams, EventsQuery, Redelivered, RedeliverBody } from './schemas.js';

const tags = ['Events'];

export const eventsPartnerRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/events',
    {
      schema: {
        tags,
        operationId: 'listEvents', summary: 'List events of the last 30 days, newest first',
        description:
          'Cursor pagination: pass the id of the last event you received as `startingAfter` while `hasMore` is true. ' +
          'Use it to recover events your endpoint missed; the items are the webhook bodies.',
        querystring: EventsQuery,
        response: { 200: EventList, ...errors(400, 401, 403, 429, 500, 503) },
      },
    },
    async (request) => listEvents(ctx.pool, { institutionId: partnerOf(request).institutionId, ...request.query, now: ctx.clock.now() }),
  );

  app.get(
    '/events/:eventId',
    {
      schema: {
        tags,
        operationId: 'getEvent', summary: 'Read an event with its delivery to each endpoint and every attempt',
        params: EventParams,
        response: { 200: EventDetail, ...errors(401, 403, 404, 429, 500, 503) },
      },
    },
    async (request) => getEventWithDeliveries(ctx, partnerOf(request).institutionId, request.params.eventId),
  );

  app.post(
    '/events/:eventId/redeliver',
    {
      schema: {
        tags,
        operationId: 'redeliverEvent', summary: 'Send an event again now, to one endpoint or to every enabled endpoint subscribed to its type',
        params: EventParams,
        body: RedeliverBody,
        response: { 202: Redelivered, ...errors(400, 401, 403, 404, 409, 413, 415, 429, 500, 503) },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await redeliverEvent(ctx, partnerOf(request).institutionId, request.params.eventId, request.body?.endpointId)),
  );
};
