import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import { AppError, notFound } from '../../../platform/errors.js';
import { readStatisticsInputs } from '../../results/get-statistics.js';
import { listStatisticsVersions } from '../../results/statistics-versions.js';
import { listStatisticsTests } from '../../results/statistics-tests.js';
import { statisticsDisposition } from '../../results/statistics-csv.js';
import { statisticsCsvOnPool } from '../../results/statistics-on-pool.js';
import { defineWorkerTask } from '../../../platform/worker-pool/worker-pool.js';
import { runForRequest } from '../../../platform/worker-pool/run-for-request.js';
import type { StatisticsBodyArgs } from './statistics-page-task.js';
import { Html, InstitutionQuery, chooseInstitution, institutionScope, pageRoute, sendHtml } from '../ui/page.js';
import { statisticsPage } from './statistics-view.js';
import { statisticsListPage } from './statistics-list-view.js';
import { portalReadPool } from '../portal-reads.js';
import { portalTranslator } from '../ui/portal-text.js';

/**
 * `GET /portal/statistics`: the tests whose statistics the acting
 * institution may read (statistics-list-view.ts).
 * `GET /portal/tests/{testId}/statistics`: a test's item statistics over the
 * acting institution's attempts (staff with `read`: their own institution's;
 * operators choose one), and `…/statistics.csv` the same item analysis as a
 * download. A test the institution cannot see is a 404, as on the operator
 * API. All may be a little behind: the read replica's (portal-reads.ts).
 *
 * The reads run here; the figures, their HTML and the CSV are computed on
 * the worker pool (statistics-page-task.ts, results/statistics-on-pool.ts).
 * A full pool is a 503 page with Retry-After (portal-errors.ts).
 */
const RENDER_BODY = defineWorkerTask<StatisticsBodyArgs, string>(new URL('./statistics-page-task.js', import.meta.url), 'renderStatisticsBody');
const PAGE_SIZE = 50;
const Params = Type.Object({ testId: Type.String({ maxLength: 64 }) });
const StatsQuery = Type.Object({
  ...InstitutionQuery,
  version: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  mode: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('test')])),
});

export const statisticsPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/statistics',
    { schema: { ...pageRoute, querystring: Type.Object({ ...InstitutionQuery, page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })) }), response: { 200: Html } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'read');
      if (!scope) {
        const t = portalTranslator();
        return sendHtml(reply, await chooseInstitution(ctx, request.staff!, 'statistics', t.t('portal.nav.statistics'), '/portal/statistics', t));
      }
      const page = request.query.page ?? 1;
      const { data, total } = await listStatisticsTests(portalReadPool(ctx, request), scope.institutionId, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
      return sendHtml(reply, statisticsListPage(scope, { rows: data, page, pages: Math.max(1, Math.ceil(total / PAGE_SIZE)) }));
    },
  );

  app.get('/tests/:testId/statistics', { schema: { ...pageRoute, params: Params, querystring: StatsQuery, response: { 200: Html } } }, async (request, reply) => {
    const scope = await institutionScope(ctx, request, 'read');
    const { testId } = request.params;
    if (!scope) {
      const t = portalTranslator();
      return sendHtml(reply, await chooseInstitution(ctx, request.staff!, 'statistics', t.t('portal.statistics.chooseTitle'), `/portal/tests/${testId}/statistics`, t));
    }
    const livemode = request.query.mode !== 'test';
    const db = portalReadPool(ctx, request);
    const inputs = await readStatisticsInputs(db, { institutionId: scope.institutionId, testId, version: request.query.version, livemode });
    const versions = await listStatisticsVersions(db, testId);
    if (versions.length === 0) throw notFound('test');
    const shown = versions.find((v) => v.version === inputs.version);
    const title = shown?.title ?? testId;
    const language = shown ? { language: shown.language, translated: shown.translated } : null;
    const csvHref = scope.link(`/portal/tests/${testId}/statistics.csv`, { version: String(inputs.version), mode: livemode ? 'live' : 'test' });
    const body = await runForRequest(RENDER_BODY, { inputs: JSON.stringify(inputs), livemode, language, csvHref });
    return sendHtml(reply, statisticsPage({ scope, testId, title, version: inputs.version, versions: versions.map((v) => v.version), livemode, language, body }));
  });

  app.get(
    '/tests/:testId/statistics.csv',
    { schema: { ...pageRoute, params: Params, querystring: StatsQuery, response: { 200: Type.String() } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'read');
      if (!scope) throw new AppError('not_found', 'Choose an institution first.');
      const livemode = request.query.mode !== 'test';
      const db = portalReadPool(ctx, request);
      const inputs = await readStatisticsInputs(db, { institutionId: scope.institutionId, testId: request.params.testId, version: request.query.version, livemode });
      const title = (await listStatisticsVersions(db, inputs.testId)).find((v) => v.version === inputs.version)?.title ?? inputs.testId;
      const csv = await statisticsCsvOnPool(inputs);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', statisticsDisposition(title, inputs.version, livemode))
        .header('cache-control', 'no-store')
        .send(csv);
    },
  );
};
