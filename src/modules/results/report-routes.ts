import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PAGE_HEADERS } from '../../platform/web/html.js';
import { assetRoute, loadAsset } from '../../platform/web/asset-route.js';
import { signedLinkLimit } from '../../platform/http/rate-limit-requests.js';
import type { AssignmentsContext } from '../assignments/context.js';
import { findReport } from './report-repo.js';
import { reportContent } from './report-content.js';
import { reportBusyPage, reportNotFoundPage, reportPage } from './report-page.js';
import type { RenderedReport, RenderReportArgs } from './report-pdf-task.js';
import { testModeStylesheets } from './report-assets.js';
import { readOrPrimary } from '../../platform/read-replica.js';
import { translator } from '../../platform/i18n/catalogue.js';
import { chooseLocale } from '../../platform/i18n/locales.js';
import { defineWorkerTask } from '../../platform/worker-pool/worker-pool.js';
import { runForRequest, unavailableRetryAfter } from '../../platform/worker-pool/run-for-request.js';

/**
 * The candidate report behind `result.reportUrl`: `GET /reports/{token}`
 * (a page; `?format=pdf` the PDF). The signed token is the only key: no
 * session, no API key. A tampered, expired or unknown token, or one for an
 * assignment that is not completed, gets the same 404 page, which names
 * nobody. Nothing is cached and no Referer leaves the page.
 *
 * The report is in the candidate's language, chosen as the student pages
 * choose it: the candidate's own choice, the assignment's `locale`, then the
 * browser's Accept-Language, else English (docs/languages.md). The refusal
 * page knows no assignment: it follows Accept-Language alone.
 *
 * The PDF is drawn on the worker pool (report-pdf-task.ts): the loop reads
 * the report and chooses its language, a thread draws it. When the pool is
 * full (or the drawing ran past its time), the link answers 503 with
 * Retry-After and a page in the report's language that offers to try again
 * and the report as a page, which is drawn on the loop (a few ms).
 */
const REPORT_HEADERS = { ...PAGE_HEADERS, 'x-robots-tag': 'noindex' };
const RENDER_REPORT_PDF = defineWorkerTask<RenderReportArgs, RenderedReport>(new URL('./report-pdf-task.js', import.meta.url), 'renderReportPdf');
/** Font warnings already logged: each thread finds a missing face once, the process says so once. */
const warnedFonts = new Set<string>();

export const reportRoutes: FastifyPluginAsyncTypebox<{ ctx: AssignmentsContext }> = async (app, { ctx }) => {
  assetRoute(app, '/reports/assets/report.css', loadAsset(new URL('./assets/report.css', import.meta.url), 'text/css; charset=utf-8'));
  for (const [name, sheet] of testModeStylesheets()) assetRoute(app, `/reports/assets/${name}`, sheet);

  // A wildcard, not a parameter: a token is longer than the router's parameter limit. Limited per link like start links.
  const linkLimit = signedLinkLimit(app, { perLinkPerMinute: ctx.config.requestLimits.startLinkOpensPerMinute, perAddressPerMinute: ctx.config.requestLimits.startLinksPerMinute });
  app.get(
    '/reports/*',
    {
      exposeHeadRoute: false,
      onRequest: linkLimit.onRequest,
      config: { page: true, ...linkLimit.config },
      schema: {
        hide: true,
        querystring: Type.Object({ format: Type.Optional(Type.Union([Type.Literal('html'), Type.Literal('pdf')])) }),
      },
    },
    async (request, reply) => {
      const now = ctx.clock.now();
      const acceptLanguage = request.headers['accept-language'];
      const pseudo = { pseudo: ctx.config.pseudoLocale };
      const link = ctx.signer.report.verify((request.params as { '*': string })['*'], now);
      // The report may be a little behind (the read replica's, within its bound); but a report the replica does not
      // have yet (its assignment completed moments ago: the partner opens the link on exam.completed) is asked of the primary.
      const data = link.ok ? await readOrPrimary(ctx, (db) => findReport(db, link.assignmentId), (found) => !found) : null;
      if (!data) return reply.code(404).headers(REPORT_HEADERS).send(reportNotFoundPage(translator(chooseLocale({ acceptLanguage }, pseudo))));
      const locale = chooseLocale({ candidate: data.candidateLocale, assignment: data.locale, acceptLanguage }, pseudo);
      const t = translator(locale);
      if (request.query.format === 'pdf') {
        let rendered: RenderedReport;
        try {
          rendered = await runForRequest(RENDER_REPORT_PDF, { data, generatedAt: now, locale, fontDirs: ctx.config.reportFontDirs });
        } catch (err) {
          const retryAfter = unavailableRetryAfter(err);
          if (retryAfter === null) throw err;
          request.log.warn({ reason: (err as Error).message }, 'report PDF not drawn: the worker pool is busy');
          return reply.code(503).headers({ ...REPORT_HEADERS, 'retry-after': retryAfter }).send(reportBusyPage(t));
        }
        for (const w of rendered.warnings) {
          const key = JSON.stringify(w);
          if (!warnedFonts.has(key)) request.log.warn(w.fields, w.message);
          warnedFonts.add(key);
        }
        return reply
          .code(200)
          .headers({ ...REPORT_HEADERS, 'content-type': 'application/pdf', 'content-disposition': `inline; filename="report-${data.assignmentId}.pdf"` })
          .send(Buffer.from(rendered.pdf.buffer, rendered.pdf.byteOffset, rendered.pdf.byteLength));
      }
      const content = reportContent(data, now, t);
      return reply.code(200).headers(REPORT_HEADERS).send(reportPage(content, data.institutionName));
    },
  );
};
