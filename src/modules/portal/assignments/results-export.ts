import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Readable } from 'node:stream';
import { AppError } from '../../../platform/errors.js';
import type { AppContext } from '../../../platform/context.js';
import type { ExportKind } from '../../results/export-download.js';
import { CSV_HEADERS, openExport } from '../../results/open-export.js';
import { InstitutionQuery, auditContext, institutionScope, pageRoute } from '../ui/page.js';
import { parseFilters } from './assignment-filters.js';
import { portalReadPool } from '../portal-reads.js';

const Text = (max: number) => Type.Optional(Type.String({ maxLength: max }));

/**
 * The Assignments page's **Export CSV** (the results export,
 * results/results-csv.ts) and **Export responses** (one row per candidate
 * and question, results/item-export.ts), of the page's own filters, for
 * staff who may read the institution's assignments (`read`: every role);
 * an operator exports the institution they are looking at. Mode "All"
 * exports live and test-mode rows, each marked in the `livemode` column.
 * Each download is in the audit log under the staff member's name.
 */
export const resultsExportPage: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const csvPage = (kind: ExportKind) =>
    app.get(
      `/assignments/${kind}.csv`,
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
        // An export may be a little behind: the read replica's (portal-reads.ts); its audit entry goes to the primary.
        const { body, disposition } = await openExport(portalReadPool(ctx, request), ctx.pool, { kind, filter, audit: auditContext(request), now: ctx.clock.now() });
        return reply.headers(CSV_HEADERS).header('content-disposition', disposition).send(body);
      },
    );
  csvPage('results');
  csvPage('responses');
};
