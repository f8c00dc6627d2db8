import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { getTestStatistics } from './get-statistics.js';
import { StatisticsParams, StatisticsQuery, TestStatisticsSchema } from './schemas.js';

/** Results through the operator API: item statistics per test version, the results export. */
export const resultsAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/tests/:testId/statistics',
    {
      schema: {
        tags: ['Results'],
        operationId: 'getTestStatistics',
        summary: "Item statistics of one test version over an institution's completed, final attempts: mean, SD, Cronbach's alpha, SEM; per question facility, discrimination, option point-biserials and flags",
        params: StatisticsParams,
        querystring: StatisticsQuery,
        response: { 200: TestStatisticsSchema, ...errors(400, 401, 404) },
      },
    },
    async (request) => getTestStatistics(ctx.pool, { institutionId: request.query.institutionId, testId: request.params.testId, version: request.query.version, livemode: request.query.livemode ?? true }),
  );
};
