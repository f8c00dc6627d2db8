import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { errors, paged } from '../../platform/http/schemas.js';
import { operatorListEndpoints, operatorSetEndpointStatus } from './operate-endpoints.js';
import { EndpointParams, OperatorEndpointView } from './schemas.js';
import { operatorTokenAudit } from '../staff/audit.js';
import { ENDPOINT_STATUSES } from './webhook-statuses.js';

const tags = ['Webhooks'];

export const webhooksAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/webhook-endpoints',
    {
      schema: {
        tags,
        operationId: 'listAllWebhookEndpoints', summary: "List webhook endpoints of every institution (or one), with why and when any was disabled",
        querystring: Type.Object(
          {
            institutionId: Type.Optional(Type.String({ maxLength: 64 })),
            status: Type.Optional(Type.Union(ENDPOINT_STATUSES.map((s) => Type.Literal(s)))),
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
            offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
          },
          { additionalProperties: false },
        ),
        response: { 200: paged(OperatorEndpointView), ...errors(400, 401) },
      },
    },
    async (request) => {
      const { institutionId, ...filter } = request.query;
      const tenant = institutionId !== undefined ? { institutionId } : ({ kind: 'operator' } as const);
      return { ...(await operatorListEndpoints(ctx, tenant, filter)), limit: filter.limit, offset: filter.offset };
    },
  );

  for (const status of ['disabled', 'enabled'] as const) {
    app.post(
      `/webhook-endpoints/:endpointId/${status === 'disabled' ? 'disable' : 'enable'}`,
      {
        schema: {
          tags,
          operationId: status === 'disabled' ? 'disableWebhookEndpoint' : 'enableWebhookEndpoint',
          summary:
            status === 'disabled'
              ? 'Disable an endpoint (the partner cannot enable it again); its pending deliveries fail'
              : 'Enable an endpoint, whoever disabled it, with a clean failure record',
          params: EndpointParams,
          response: { 200: OperatorEndpointView, ...errors(401, 404) },
        },
      },
      async (request) => operatorSetEndpointStatus(ctx, request.params.endpointId, status, operatorTokenAudit(request.ip)),
    );
  }
};
