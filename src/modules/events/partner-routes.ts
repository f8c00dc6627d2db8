import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { partnerOf } from '../institutions/partner-auth.js';
import { getEventWithDeliveries } from './get-event.js';
import { listEvents } from './list-events.js';
import { redeliverEvent } from '../webhooks/redeliver-event.js';
import { EventDetail, EventList, EventParams, EventsQuery, Redelivered, RedeliverBody } from './schemas.js';

const tags = ['Events'];
const JSON_TYPE = 'application/json; charset=utf-8';

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
    async (request, reply) => {
      const { institutionId, livemode } = partnerOf(request);
      const { data, hasMore } = await listEvents(ctx.pool, { institutionId, livemode, ...request.query, now: ctx.clock.now() });
      // Each item is the event's envelope text, byte for byte its webhook body (so not re-serialised here).
      return reply.type(JSON_TYPE).send(`{"data":[${data.join(',')}],"hasMore":${hasMore}}` as never);
    },
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
    async (request, reply) => {
      const { institutionId, livemode } = partnerOf(request);
      const { envelope, deliveries } = await getEventWithDeliveries(ctx, institutionId, request.params.eventId, livemode);
      const serialize = reply.getSerializationFunction('200') as unknown as (v: unknown) => string;
      // The envelope's own text, then the deliveries through the 200 schema (an event with no deliveries and the same keys).
      const rest = serialize({ id: '', type: 'webhook.test', timestamp: new Date(0), livemode, data: {}, deliveries });
      const deliveriesJson = rest.slice(rest.indexOf('"deliveries":'));
      return reply.type(JSON_TYPE).send(`${envelope.slice(0, -1)},${deliveriesJson}` as never);
    },
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
      reply.code(202).send(await redeliverEvent(ctx, partnerOf(request).institutionId, request.params.eventId, request.body?.endpointId, partnerOf(request).livemode)),
  );
};
