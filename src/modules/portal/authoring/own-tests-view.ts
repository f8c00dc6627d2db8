import type { Translator } from '../../../platform/i18n/catalogue.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { StaffPrincipal } from '../../staff/principal.js';
import type { AuthoredTestRow } from '../../catalog/drafts.js';
import { csrfField, dataTable, whenShort, type Flash } from '../ui/components.js';
import { portalLayout } from '../ui/layout.js';
import { richText } from '../ui/portal-text.js';
import { exportLinks } from './export-pages.js';

/**
 * The Tests page of an institution's authors and admins: their
 * institution's own tests (drafts included), newest first. Each opens in the form
 * editor (editor-pages.ts), built on the authoring API (docs/authoring.md).
 */
export function ownTestsPage(p: { principal: StaffPrincipal; tests: AuthoredTestRow[]; total: number; pager: SafeHtml; flash?: Flash | null; t: Translator }): string {
  const { t } = p;
  const main = html`<div class="page-head"><h1>${t.t('portal.nav.tests')}</h1><p class="page-actions">${newTestForm(p.principal.sessionCsrf, t)} <a class="button secondary" href="/portal/tests/import">${t.t('portal.authoring.tests.import')}</a></p></div>
<p class="lede">${richText(t, 'portal.authoring.tests.ownLede', { total: p.total })}</p>
${dataTable({
  caption: t.t('portal.authoring.tests.ownCaption'),
  stack: true,
  columns: [{ label: t.t('portal.authoring.tests.title') }, { label: t.t('portal.authoring.tests.published') }, { label: t.t('portal.authoring.tests.draft') }, { label: t.t('portal.authoring.tests.lastChanged') }, { label: t.t('portal.export.column') }],
  rows: p.tests.map((row) => [
    html`<a href="/portal/tests/${row.testId}/edit">${row.title || t.t('portal.authoring.untitled')}</a><br><span class="hint"><code>${row.testId}</code>${row.currentVersion > 0 ? html` · ${statisticsLink(row, t)}` : ''}</span>`,
    row.currentVersion === 0 ? t.t('portal.authoring.tests.notYet') : t.t('portal.authoring.tests.versionN', { version: row.currentVersion }),
    row.draftRevision === null ? t.t('portal.authoring.tests.noDraft') : t.t('portal.authoring.tests.revisionN', { revision: row.draftRevision }),
    whenShort(row.updatedAt, t),
    exportLinks({ testId: row.testId, title: row.title || t.t('portal.authoring.untitled') }, 'latest', t),
  ]),
  empty: t.t('portal.authoring.tests.none'),
})}
<p class="hint">${t.t('portal.export.listHint')}</p>
${p.pager}`;
  return portalLayout({ title: t.t('portal.nav.tests'), principal: p.principal, current: 'tests', main, flash: p.flash ?? null, t });
}

/** A test's Statistics link, named for screen readers by the test it opens. */
export function statisticsLink(test: { testId: string; title: string }, t: Translator): SafeHtml {
  return html`<a href="/portal/tests/${test.testId}/statistics">${t.t('portal.authoring.tests.statistics')}<span class="sr-only"> ${t.t('portal.authoring.tests.statisticsOf', { title: test.title })}</span></a>`;
}

/** **New test**: a draft is created at once and opens in the editor. */
export function newTestForm(csrf: string, t: Translator): SafeHtml {
  return html`<form method="post" action="/portal/tests/drafts" class="inline-form">${csrfField(csrf)}<button type="submit" class="button primary">${t.t('portal.authoring.newTest')}</button></form>`;
}
