import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import { attachment } from '../../../platform/http/content-disposition.js';
import { html } from '../../../platform/web/html.js';
import type { Translator } from '../../../platform/i18n/catalogue.js';
import { exportAuthoredTest } from '../../catalog/interchange/export-authored.js';
import { requirePermission } from '../../staff/principal.js';
import { portalLayout } from '../ui/layout.js';
import { Html, auditContext, pageRoute, sendHtml } from '../ui/page.js';
import { portalTranslator } from '../ui/portal-text.js';
import { scopeOf } from './authoring-api.js';

/**
 * **Export** (docs/import-export.md "Export from the portal"): a test as a
 * QTI 3.0 package or a CSV, for those who may author it (authors and admins
 * their institution's tests, operators any; reviewers and viewers a 403,
 * another institution's test a 404). `from=draft` (the editor's) writes the
 * saved draft, `from=latest` (the Tests page's) the newest published version,
 * or the draft of a test never published.
 */
const Params = Type.Object({ testId: Type.String({ maxLength: 64 }) });
const Query = Type.Object(
  {
    format: Type.Union([Type.Literal('qti3'), Type.Literal('csv')]),
    from: Type.Optional(Type.Union([Type.Literal('draft'), Type.Literal('latest')], { default: 'latest' })),
  },
  { additionalProperties: false },
);

/** Export links, each named for screen readers by the test; `from` as the route takes it. */
export function exportLinks(test: { testId: string; title: string }, from: 'draft' | 'latest', t: Translator) {
  const href = (format: string) => `/portal/tests/${test.testId}/export?format=${format}&from=${from}`;
  const of = html`<span class="sr-only"> ${t.t('portal.export.of', { title: test.title })}</span>`;
  return html`<a href="${href('qti3')}" data-export="qti3">${t.t('portal.export.qti')}${of}</a> · <a href="${href('csv')}" data-export="csv">${t.t('portal.export.csv')}${of}</a>`;
}

export const exportPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const t = portalTranslator();
  app.get(
    '/tests/:testId/export',
    { schema: { ...pageRoute, params: Params, querystring: Query, response: { 200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }), 409: Html } } },
    async (request, reply) => {
      const principal = requirePermission(request, 'author_tests');
      const { testId } = request.params;
      const from = request.query.from ?? 'latest';
      try {
        const file = await exportAuthoredTest(ctx, scopeOf(request), testId, { format: request.query.format, source: from, audit: auditContext(request) });
        const suffix = file.extension === 'zip' ? ' (QTI 3.0)' : '';
        return reply
          .code(200)
          .header('content-type', file.contentType)
          .header('content-disposition', attachment(`${file.title}${suffix}`, file.extension, testId))
          .header('cache-control', 'no-store')
          .header('x-content-type-options', 'nosniff')
          .send(Buffer.from(file.bytes));
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'invalid_state') throw err;
        // Refused (an unfinished draft, a question CSV cannot hold): a page in words, each problem listed, the way back.
        const details = err.details ?? [];
        const heading = err.message.startsWith('The draft') ? 'portal.export.refusedHeading' : 'portal.export.refusedCsvHeading';
        const main = html`<nav class="breadcrumbs" aria-label="${t.t('portal.breadcrumb')}"><ol><li><a href="/portal/tests">${t.t('portal.nav.tests')}</a></li><li aria-current="page">${t.t('portal.export.crumb')}</li></ol></nav>
<h1>${t.t(heading)}</h1>
<div class="error-summary" role="alert" tabindex="-1" id="error-summary">
${details.length > 0 ? html`<ul>${details.map((d) => html`<li><code>${d.field}</code>: ${d.message}</li>`)}</ul>` : html`<p>${err.message}</p>`}
</div>
<p>${t.t(heading === 'portal.export.refusedHeading' ? 'portal.export.refusedDraft' : 'portal.export.refusedCsv')}</p>
<p class="actions"><a class="button primary" href="/portal/tests/${testId}/edit">${t.t('portal.export.openEditor')}</a> <a class="button secondary" href="/portal/tests">${t.t('portal.export.backToTests')}</a></p>`;
        return sendHtml(reply, portalLayout({ title: t.t(heading), principal, current: 'tests', main, t }), 409);
      }
    },
  );
};
