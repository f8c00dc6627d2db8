import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import { notFound } from '../../../platform/errors.js';
import { getTestStatistics } from '../../results/get-statistics.js';
import { listStatisticsVersions } from '../../results/statistics-versions.js';
import { Html, InstitutionQuery, chooseInstitution, institutionScope, pageRoute, sendHtml } from '../ui/page.js';
import { statisticsPage } from './statistics-view.js';
import { portalReadPool } from '../portal-reads.js';

/**
 * `GET /portal/tests/{testId}/statistics`: a test's item statistics over the
 * acting institution's attempts (staff with `read`: their own institution's;
 * operators choose one). A test the institution cannot see is a 404, as on
 * the operator API.
 */
export const statisticsPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/tests/:testId/statistics',
    {
      schema: {
        ...pageRoute,
        params: Type.Object({ testId: Type.String({ maxLength: 64 }) }),
        querystring: Type.Object({
          ...InstitutionQuery,
          version: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
          mode: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('test')])),
        }),
        response: { 200: Html },
      },
    },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'read');
      const { testId } = request.params;
      if (!scope) return sendHtml(reply, await chooseInstitution(ctx, request.staff!, 'tests', 'Statistics', `/portal/tests/${testId}/statistics`));
      const livemode = request.query.mode !== 'test';
      // Statistics may be a little behind: the read replica's (portal-reads.ts).
      const db = portalReadPool(ctx, request);
      const stats = await getTestStatistics(db, { institutionId: scope.institutionId, testId, version: request.query.version, livemode });
      const versions = await listStatisticsVersions(db, testId);
      if (versions.length === 0) throw notFound('test');
      const title = versions.find((v) => v.version === stats.version)?.title ?? testId;
      return sendHtml(reply, statisticsPage({ scope, testId, title, stats, versions: versions.map((v) => v.version), livemode }));
    },
  );
};
