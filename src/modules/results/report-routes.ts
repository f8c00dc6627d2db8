import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PAGE_HEADERS } from '../../platform/web/html.js';
import { assetRoute, loadAsset } from '../../platform/web/asset-route.js';
import { signedLinkLimit } from '../../platform/http/rate-limit-requests.js';
import type { AssignmentsContext } from '../assignments/context.js';
import { findReport } from './report-repo.js';
import { reportContent } from './report-content.js';
import { reportNotFoundPage, reportPage } from './report-page.js';
import { reportPdf } from './report-pdf.js';
import { readOrPrimary } from '../../platform/read-replica.js';

/**
 * The candidate report behind `result.reportUrl`: `GET /reports/{token}`
 * (a page; `?format=pdf` the PDF). The signed token is the only key: no
 * session, no API key. A tampered, expired or unknown token, or one for an
 * assignment that is not completed, gets the same 404 page, which names
 * nobody. Nothing is cached and no Referer leaves the page.
 */
const REPORT_HEADERS = { ...PAGE_HEADERS, 'x-robots-tag': 'noindex' };

export const reportRoutes: FastifyPluginAsyncTypebox<{ ctx: AssignmentsContext }> = async (app, { ctx }) => {
  for (const name of ['report.css', 'report-test-mode.css']) {
    assetRoute(app, `/reports/assets/${name}`, loadAsset(new URL(`./assets/${name}`, import.meta.url), 'text/css; charset=utf-8'));
  }

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
      const link = ctx.signer.report.verify((request.params as { '*': string })['*'], now);
      // The report may be a little behind (the read replica's, within its bound); but a report the replica does not
      // have yet (its assignment completed moments ago: the partner opens the link on exam.completed) is asked of the primary.
      const data = link.ok ? await readOrPrimary(ctx, (db) => findReport(db, link.assignmentId), (found) => !found) : null;
      if (!data) return reply.code(404).headers(REPORT_HEADERS).send(reportNotFoundPage());
      const content = reportContent(data, now);
      if (request.query.format === 'pdf') {
        const pdf = await reportPdf(content, data.institutionName);
        return reply
          .code(200)
          .headers({ ...REPORT_HEADERS, 'content-type': 'application/pdf', 'content-disposition': `inline; filename="report-${data.assignmentId}.pdf"` })
          .send(pdf);
      }
      return reply.code(200).headers(REPORT_HEADERS).send(reportPage(content, data.institutionName));
    },
  );
};
