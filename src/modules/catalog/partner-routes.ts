import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { PagingQuery, errors, paged } from '../../platform/http/schemas.js';
import { partnerOf } from '../institutions/partner-auth.js';
import { PartnerTest } from './schemas.js';
import { listTestsForPartner } from './tests-service.js';

export const testsPartnerRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/tests',
    {
      schema: {
        tags: ['Tests'],
        operationId: 'listTests', summary: 'List the tests published to your institution',
        querystring: PagingQuery,
        response: { 200: paged(PartnerTest), ...errors(400, 401, 403, 429, 500, 503) },
      },
    },
    async (request) => {
      const { institutionId } = partnerOf(request);
      const { limit, offset } = request.query;
      const { data, total } = await listTestsForPartner(ctx.pool, institutionId, { limit, offset });
      return { data, total, limit, offset };
    },
  );
};
