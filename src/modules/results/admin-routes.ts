import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { getTestStatistics } from './get-statistics.js';
import { exportFileName, exportFilter } from './export-filter.js';
import { resultsCsv } from './results-csv.js';
import { ResultsCsvParams, ResultsCsvQuery, StatisticsParams, StatisticsQuery, TestStatisticsSchema } from './schemas.js';

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

  app.get(
    '/institutions/:institutionId/results.csv',
    {
      schema: {
        tags: ['Results'],
        operationId: 'exportResults',
        summary: "An institution's assignments as CSV, one row each, with the Assignments page's filters: ids, test, version, status, timestamps, score, section percents, proctoring flag counts (streamed)",
        params: ResultsCsvParams,
        querystring: ResultsCsvQuery,
        response: { 200: Type.Unsafe<Readable>({ type: 'string', description: 'text/csv, RFC 4180, a header row first (docs/results.md)' }), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const filter = await exportFilter(ctx.pool, request.params.institutionId, request.query);
      const body = await resultsCsv(ctx.pool, filter);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${exportFileName(filter.institutionId, ctx.clock.now())}"`)
        .header('cache-control', 'no-store')
        .send(body);
    },
  );
};
