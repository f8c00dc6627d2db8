import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { getTestStatistics } from './get-statistics.js';
import { exportFileName, exportFilter } from './export-filter.js';
import { resultsCsv } from './results-csv.js';
import { ResultsCsvParams, ResultsCsvQuery, StatisticsParams, StatisticsQuery, TestStatisticsSchema } from './schemas.js';
import { readOrPrimary } from '../../platform/read-replica.js';

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
    // Statistics and the export may be a little behind: the read replica's, within its bound (platform/read-replica.ts).
    async (request) => {
      const { institutionId, version } = request.query;
      return readOrPrimary(ctx, (db) => getTestStatistics(db, { institutionId, testId: request.params.testId, version, livemode: request.query.livemode ?? true }));
    },
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
      // The filter's institution and test are checked where the rows are read: a miss on the replica, on the primary.
      const { db, filter } = await readOrPrimary(ctx, async (db) => ({ db, filter: await exportFilter(db, request.params.institutionId, request.query) }));
      const body = await resultsCsv(db, filter);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${exportFileName(filter.institutionId, ctx.clock.now())}"`)
        .header('cache-control', 'no-store')
        .send(body);
    },
  );
};
