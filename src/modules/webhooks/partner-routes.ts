import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { PagingQuery, errors, paged } from '../../platform/http/schemas.js';
import { partnerOf } from '../institutions/partner-auth.js';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, updateEndpoint } from './manage-endpoints.js';
import { rotateEndpointSecret } from './rotate-endpoint-secret.js';
import { sendTestEvent } from './send-test-event.js';
import { CreateEndpointBody, CreatedEndpoint, EndpointParams, EndpointView, RotatedSecret, TestEventSent, UpdateEndpointBody } from './schemas.js';

const tags = ['Webhooks'];

export const webhooksPartnerRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/webhook-endpoints',
    {
      schema: {
        tags,
        operationId: 'createWebhookEndpoint', summary: 'Register a webhook endpoint; the response carries its signing secret, shown only once',
        body: CreateEndpointBody,
        response: { 201: CreatedEndpoint, ...errors(400, 401, 403, 409, 413, 415, 422, 429, 500, 503) },
      },
    },
    async (request, reply) => reply.code(201).send(await createEndpoint(ctx, partnerOf(request).institutionId, request.body, partnerOf(request).livemode)),
  );

  app.get(
    '/webhook-endpoints',
    { schema: { tags, operationId: 'listWebhookEndpoints', summary: 'List your webhook endpoints', querystring: PagingQuery, response: { 200: paged(EndpointView), ...errors(400, 401, 403, 429, 500, 503) } } },
    async (request) => {
      const { limit, offset } = request.query;
      return { ...(await listEndpoints(ctx, partnerOf(request).institutionId, { limit, offset }, partnerOf(request).livemode)), limit, offset };
    },
  );

  app.get(
    '/webhook-endpoints/:endpointId',
    { schema: { tags, operationId: 'getWebhookEndpoint', summary: 'Read a webhook endpoint (never its secret)', params: EndpointParams, response: { 200: EndpointView, ...errors(401, 403, 404, 429, 500, 503) } } },
    async (request) => getEndpoint(ctx, partnerOf(request).institutionId, request.params.endpointId, partnerOf(request).livemode),
  );

  app.patch(
    '/webhook-endpoints/:endpointId',
    {
      schema: {
        tags,
        operationId: 'updateWebhookEndpoint', summary: 'Change the URL, event types or description, or disable / enable the endpoint',
        description: 'Disabling fails its pending deliveries; the events stay listable and can be redelivered after enabling it again.',
        params: EndpointParams,
        body: UpdateEndpointBody,
        response: { 200: EndpointView, ...errors(400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503) },
      },
    },
    async (request) => updateEndpoint(ctx, partnerOf(request).institutionId, request.params.endpointId, request.body, partnerOf(request).livemode),
  );

  app.delete(
    '/webhook-endpoints/:endpointId',
    { schema: { tags, operationId: 'deleteWebhookEndpoint', summary: 'Delete a webhook endpoint and its delivery history', params: EndpointParams, response: { 204: Type.Null(), ...errors(401, 403, 404, 429, 500, 503) } } },
    async (request, reply) => {
      await deleteEndpoint(ctx, partnerOf(request).institutionId, request.params.endpointId, partnerOf(request).livemode);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/webhook-endpoints/:endpointId/rotate-secret',
    {
      schema: {
        tags,
        operationId: 'rotateWebhookEndpointSecret', summary: 'Replace the signing secret; for 24 hours deliveries are signed with both the new and the previous one',
        params: EndpointParams,
        response: { 200: RotatedSecret, ...errors(401, 403, 404, 429, 500, 503) },
      },
    },
    async (request) => rotateEndpointSecret(ctx, partnerOf(request).institutionId, request.params.endpointId, partnerOf(request).livemode),
  );

  app.post(
    '/webhook-endpoints/:endpointId/test',
    {
      schema: {
        tags,
        operationId: 'sendWebhookTestEvent', summary: 'Send a webhook.test event to this endpoint through the normal delivery path',
        params: EndpointParams,
        response: { 202: TestEventSent, ...errors(401, 403, 404, 409, 429, 500, 503) },
      },
    },
    async (request, reply) => reply.code(202).send(await sendTestEvent(ctx, partnerOf(request).institutionId, request.params.endpointId, partnerOf(request).livemode)),
  );
};
