import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { StaffPrincipal } from '../../staff/principal.js';
import type { AuthoredTestRow } from '../../catalog/drafts.js';
import { csrfField, dataTable, whenShort, type Flash } from '../ui/components.js';
import { portalLayout } from '../ui/layout.js';

/**
 * The Tests page of an institution's authors and admins: their
 * institution's own tests (drafts included), newest first. Each opens in the form
 * editor (editor-pages.ts), built on the authoring API (docs/authoring.md).
 */
export function ownTestsPage(p: { principal: StaffPrincipal; tests: AuthoredTestRow[]; total: number; pager: SafeHtml; flash?: Flash | null }): string {
  const main = html`<div class="page-head"><h1>Tests</h1><p class="page-actions">${newTestForm(p.principal.sessionCsrf)} <a class="button secondary" href="/portal/tests/import">Import a test</a></p></div>
<p class="lede">Your institution's own tests (${p.total}), newest first. A published version is what your integration can assign; a draft is not assigned until it is published.</p>
${dataTable({
  caption: "Your institution's tests, newest first",
  stack: true,
  columns: [{ label: 'Title' }, { label: 'Published' }, { label: 'Draft' }, { label: 'Last changed' }],
  rows: p.tests.map((t) => [
    html`<a href="/portal/tests/${t.testId}/edit">${t.title || 'Untitled test'}</a><br><span class="hint"><code>${t.testId}</code>${t.currentVersion > 0 ? html` · <a href="/portal/tests/${t.testId}/statistics">Statistics<span class="sr-only"> of ${t.title}</span></a>` : ''}</span>`,
    t.currentVersion === 0 ? 'Not yet' : `Version ${t.currentVersion}`,
    t.draftRevision === null ? 'None' : `Revision ${t.draftRevision}`,
    whenShort(t.updatedAt),
  ]),
  empty: 'No tests yet.',
})}
${p.pager}`;
  return portalLayout({ title: 'Tests', principal: p.principal, current: 'tests', main, flash: p.flash ?? null });
}

/** **New test**: a draft is created at once and opens in the editor. */
export function newTestForm(csrf: string): SafeHtml {
  return html`<form method="post" action="/portal/tests/drafts" class="inline-form">${csrfField(csrf)}<button type="submit" class="button primary">New test</button></form>`;
}
