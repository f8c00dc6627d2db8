import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import { notFound } from '../../../platform/errors.js';
import { ASSIGNMENT_EVENT_TYPES, type AssignmentEventType } from '../../lifecycle/event-types.js';
import { createEndpoint, getEndpoint, updateEndpoint } from '../../webhooks/manage-endpoints.js';
import { redeliverEvent } from '../../webhooks/redeliver-event.js';
import { rotateEndpointSecret } from '../../webhooks/rotate-endpoint-secret.js';
import { sendTestEvent } from '../../webhooks/send-test-event.js';
import {
  CsrfBody,
  DoneQuery,
  FORM,
  Html,
  InstitutionQuery,
  Redirect,
  audited,
  flashFrom,
  formErrors,
  institutionPage,
  institutionScope,
  pageRoute,
  redirect,
  sendHtml,
} from '../ui/page.js';
import { endpointPage, endpointsPage } from './webhook-views.js';
import { DELIVERY_STATUSES, ENDPOINT_STATUSES, type DeliveryStatus } from '../../webhooks/webhook-statuses.js';
import { portalTranslator } from '../ui/portal-text.js';

/**
 * Webhooks: the institution's endpoints (create with the secret shown once,
 * disable/enable, rotate the secret, send a test event) and each endpoint's
 * delivery log with filters and redelivery, all through the webhooks
 * module's services. Reading needs `read`; every change `manage_integration`.
 */
const EndpointParams = Type.Object({ endpointId: Type.String({ maxLength: 64 }) });
const StringOrList = Type.Union([Type.String({ maxLength: 100 }), Type.Array(Type.String({ maxLength: 100 }), { maxItems: 20 })]);

export const webhookPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const title = portalTranslator().t('portal.nav.webhooks');
  institutionPage(app, ctx, { path: '/webhooks', nav: 'webhooks', title, permission: 'read' }, (scope, flash) =>
    endpointsPage(ctx, scope, { flash }),
  );

  app.post(
    '/webhooks',
    {
      schema: {
        ...pageRoute,
        consumes: FORM,
        body: Type.Object({
          ...CsrfBody,
          url: Type.Optional(Type.String({ maxLength: 4000 })),
          description: Type.Optional(Type.String({ maxLength: 2000 })),
          eventTypes: Type.Optional(StringOrList),
        }),
        response: { 201: Html, 400: Html },
      },
    },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('institution');
      const url = (request.body.url ?? '').trim();
      const description = (request.body.description ?? '').trim();
      const picked = ([] as string[]).concat(request.body.eventTypes ?? []);
      const form = { url, description, eventTypes: picked };
      const { t } = scope;
      const errors = [];
      if (!url) errors.push({ field: 'url', message: t.t('portal.webhooks.error.url') });
      if (description.length > 500) errors.push({ field: 'description', message: t.t('portal.webhooks.error.description') });
      const unknown = picked.filter((type) => !(ASSIGNMENT_EVENT_TYPES as readonly string[]).includes(type));
      if (unknown.length > 0) errors.push({ field: 'eventTypes', message: t.t('portal.webhooks.error.eventTypes', { types: unknown.join(', ') }) });
      if (errors.length > 0) return sendHtml(reply, await endpointsPage(ctx, scope, { errors, form }), 400);
      try {
        const created = await audited(
          ctx,
          request,
          (c) =>
            createEndpoint(c, scope.institutionId, {
              url,
              description: description || null,
              // None ticked: every type, including types added later.
              eventTypes: picked.length > 0 ? (picked as AssignmentEventType[]) : null,
            }),
          (e) => ({ action: 'webhook_endpoint.created', objectType: 'webhook_endpoint', objectId: e.endpointId, institutionId: scope.institutionId, details: { url: e.url, eventTypes: e.eventTypes } }),
        );
        reply.header('cache-control', 'no-store');
        return sendHtml(reply, await endpointsPage(ctx, scope, { secret: { endpointId: created.endpointId, url: created.url, secret: created.secret } }), 201);
      } catch (err) {
        return sendHtml(reply, await endpointsPage(ctx, scope, { errors: formErrors(err, 'url'), form }), 400);
      }
    },
  );

  app.get(
    '/webhooks/:endpointId',
    {
      schema: {
        ...pageRoute,
        params: EndpointParams,
        querystring: Type.Object({
          ...InstitutionQuery,
          ...DoneQuery,
          status: Type.Optional(Type.String({ maxLength: 20 })),
          eventType: Type.Optional(Type.String({ maxLength: 40 })),
          // A delivery attempt's id: at most 15 digits, so it stays a safe integer and within a bigint.
          before: Type.Optional(Type.String({ maxLength: 15, pattern: '^[0-9]{0,15}$' })),
        }),
        response: { 200: Html },
      },
    },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'read');
      if (!scope) throw notFound('webhook endpoint');
      const endpoint = await getEndpoint(ctx, scope.institutionId, request.params.endpointId);
      const q = request.query;
      const status = (DELIVERY_STATUSES as readonly string[]).includes(q.status ?? '') ? (q.status as DeliveryStatus) : undefined;
      const eventType = [...ASSIGNMENT_EVENT_TYPES, 'webhook.test'].includes(q.eventType ?? '') ? q.eventType : undefined;
      const before = q.before ? Number(q.before) : undefined;
      return sendHtml(reply, await endpointPage(ctx, scope, endpoint, { status, eventType, before, flash: flashFrom(request) }));
    },
  );

  app.post(
    '/webhooks/:endpointId/status',
    {
      schema: {
        ...pageRoute,
        consumes: FORM,
        params: EndpointParams,
        body: Type.Object({ ...CsrfBody, status: Type.Union(ENDPOINT_STATUSES.map((s) => Type.Literal(s))) }),
        response: { 303: Redirect },
      },
    },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('webhook endpoint');
      const { endpointId } = request.params;
      const status = request.body.status;
      await audited(
        ctx,
        request,
        (c) => updateEndpoint(c, scope.institutionId, endpointId, { status }),
        () => ({ action: status === 'enabled' ? 'webhook_endpoint.enabled' : 'webhook_endpoint.disabled', objectType: 'webhook_endpoint', objectId: endpointId, institutionId: scope.institutionId }),
      );
      return redirect(reply, scope.link(`/portal/webhooks/${endpointId}`, { done: status === 'enabled' ? 'endpoint-enabled' : 'endpoint-disabled' }));
    },
  );

  app.post(
    '/webhooks/:endpointId/rotate-secret',
    { schema: { ...pageRoute, consumes: FORM, params: EndpointParams, body: Type.Object(CsrfBody), response: { 200: Html } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('webhook endpoint');
      const { endpointId } = request.params;
      const rotated = await audited(
        ctx,
        request,
        (c) => rotateEndpointSecret(c, scope.institutionId, endpointId),
        () => ({ action: 'webhook_endpoint.secret_rotated', objectType: 'webhook_endpoint', objectId: endpointId, institutionId: scope.institutionId }),
      );
      const endpoint = await getEndpoint(ctx, scope.institutionId, endpointId);
      reply.header('cache-control', 'no-store');
      return sendHtml(reply, await endpointPage(ctx, scope, endpoint, { rotated }));
    },
  );

  app.post(
    '/webhooks/:endpointId/test',
    { schema: { ...pageRoute, consumes: FORM, params: EndpointParams, body: Type.Object(CsrfBody), response: { 303: Redirect, 409: Html } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('webhook endpoint');
      const { endpointId } = request.params;
      try {
        await audited(
          ctx,
          request,
          (c) => sendTestEvent(c, scope.institutionId, endpointId),
          (r) => ({ action: 'webhook_endpoint.test_sent', objectType: 'webhook_endpoint', objectId: endpointId, institutionId: scope.institutionId, details: { eventId: r.eventId } }),
        );
      } catch (err) {
        const [problem] = formErrors(err, 'endpoint');
        const endpoint = await getEndpoint(ctx, scope.institutionId, endpointId);
        return sendHtml(reply, await endpointPage(ctx, scope, endpoint, { flash: { kind: 'error', text: problem!.message } }), 409);
      }
      return redirect(reply, scope.link(`/portal/webhooks/${endpointId}`, { done: 'test-sent' }));
    },
  );

  app.post(
    '/webhooks/:endpointId/redeliver',
    {
      schema: {
        ...pageRoute,
        consumes: FORM,
        params: EndpointParams,
        body: Type.Object({ ...CsrfBody, eventId: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 303: Redirect, 409: Html },
      },
    },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('webhook endpoint');
      const { endpointId } = request.params;
      const { eventId } = request.body;
      try {
        await audited(
          ctx,
          request,
          (c) => redeliverEvent(c, scope.institutionId, eventId, endpointId),
          () => ({ action: 'event.redelivered', objectType: 'event', objectId: eventId, institutionId: scope.institutionId, details: { endpointId } }),
        );
      } catch (err) {
        const [problem] = formErrors(err, 'eventId');
        const endpoint = await getEndpoint(ctx, scope.institutionId, endpointId);
        return sendHtml(reply, await endpointPage(ctx, scope, endpoint, { flash: { kind: 'error', text: problem!.message } }), 409);
      }
      return redirect(reply, scope.link(`/portal/webhooks/${endpointId}`, { done: 'redelivered' }));
    },
  );
};
