import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { readStatisticsInputs } from './get-statistics.js';
import { statisticsJsonOnPool } from './statistics-on-pool.js';
import { exportFilter } from './export-filter.js';
import { CSV_HEADERS, openExport } from './open-export.js';
import type { ExportKind } from './export-download.js';
import { operatorTokenAudit } from '../staff/audit.js';
import { ResultsCsvParams, ResultsCsvQuery, StatisticsParams, StatisticsQuery, TestStatisticsSchema } from './schemas.js';
import { readOrPrimary } from '../../platform/read-replica.js';

/** Results through the operator API: item statistics per test version, the results and responses exports. */
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
    // The figures are computed and serialised (the schema's fields only) on the worker pool: a full pool is 503 with Retry-After.
    async (request, reply) => {
      const { institutionId, version } = request.query;
      const inputs = await readOrPrimary(ctx, (db) => readStatisticsInputs(db, { institutionId, testId: request.params.testId, version, livemode: request.query.livemode ?? true }));
      return reply.type('application/json; charset=utf-8').send((await statisticsJsonOnPool(inputs)) as never);
    },
  );

  const csvRoute = (kind: ExportKind, operationId: string, summary: string, description: string) =>
    app.get(
      `/institutions/:institutionId/${kind}.csv`,
      {
        schema: {
          tags: ['Results'],
          operationId,
          summary,
          params: ResultsCsvParams,
          querystring: ResultsCsvQuery,
          response: { 200: Type.Unsafe<Readable>({ type: 'string', description }), ...errors(400, 401, 404) },
        },
      },
      async (request, reply) => {
        // The filter's institution and test are checked where the rows are read: a miss on the replica, on the primary.
        const { db, filter } = await readOrPrimary(ctx, async (db) => ({ db, filter: await exportFilter(db, request.params.institutionId, request.query) }));
        const { body, disposition } = await openExport(db, ctx.pool, { kind, filter, audit: operatorTokenAudit(request.ip), now: ctx.clock.now() });
        return reply.headers(CSV_HEADERS).header('content-disposition', disposition).send(body);
      },
    );

  csvRoute(
    'results',
    'exportResults',
    "An institution's assignments as CSV, one row each, with the Assignments page's filters: ids, the candidate's name and email, test, version, status, timestamps, score, section percents, proctoring flag counts (streamed, audited)",
    'text/csv, UTF-8 with a byte order mark, RFC 4180, a header row first (docs/results.md)',
  );
  csvRoute(
    'responses',
    'exportResponses',
    "The same assignments' responses as CSV, one row per candidate and question: section, prompt, the response in words, points, max points, criterion marks (streamed, audited)",
    'text/csv, UTF-8 with a byte order mark, RFC 4180, a header row first (docs/results.md)',
  );
};
