import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Readable } from 'node:stream';
import { AppError } from '../../../platform/errors.js';
import type { AppContext } from '../../../platform/context.js';
import { exportFileName } from '../../results/export-filter.js';
import { resultsCsv } from '../../results/results-csv.js';
import { InstitutionQuery, institutionScope, pageRoute } from '../ui/page.js';
import { parseFilters } from './assignment-filters.js';
import { portalReadPool } from '../portal-reads.js';

const Text = (max: number) => Type.Optional(Type.String({ maxLength: max }));

/**
 * The Assignments page's **Export CSV**: the results export
 * (results/results-csv.ts) of the page's own filters, for staff who may
 * read the institution's assignments; an operator exports the institution
 * they are looking at. Mode "All" exports live and test-mode rows, each
 * marked in the `livemode` column.
 */
export const resultsExportPage: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/assignments/results.csv',
    {
      schema: {
        ...pageRoute,
        querystring: Type.Object({ ...InstitutionQuery, q: Text(128), mode: Text(10), status: Text(20), testId: Text(64), from: Text(20), to: Text(20) }),
        response: { 200: Type.Unsafe<Readable>({ type: 'string' }) },
      },
    },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'read');
      if (!scope) throw new AppError('not_found', 'Choose an institution first.');
      const { filter, errors } = parseFilters(scope.institutionId, request.query);
      if (errors.length > 0) throw new AppError('invalid_request', errors.map((e) => e.message).join(' '), errors);
      // An export may be a little behind: the read replica's (portal-reads.ts).
      const body = await resultsCsv(portalReadPool(ctx, request), filter);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${exportFileName(scope.institutionId, ctx.clock.now())}"`)
        .header('cache-control', 'no-store')
        .send(body);
    },
  );
};
