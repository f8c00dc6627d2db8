import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { StaffPrincipal } from '../../staff/principal.js';
import type { AuthoredTestRow } from '../../catalog/drafts.js';
import { dataTable, whenShort, type Flash } from '../ui/components.js';
import { portalLayout } from '../ui/layout.js';

/**
 * The Tests page of an institution's authors and admins: their
 * institution's own tests (drafts included), newest first. The form editor
 * that opens them is built on the authoring API (docs/authoring.md).
 */
export function ownTestsPage(p: { principal: StaffPrincipal; tests: AuthoredTestRow[]; total: number; pager: SafeHtml; flash?: Flash | null }): string {
  const main = html`<h1>Tests</h1>
<p class="lede">Your institution's own tests (${p.total}), newest first. A published version is what your integration can assign; a draft is not assigned until it is published.</p>
<p class="actions"><a class="button secondary" href="/portal/tests/import">Import a test</a></p>
${dataTable({
  caption: "Your institution's tests, newest first",
  stack: true,
  columns: [{ label: 'Title' }, { label: 'Published' }, { label: 'Draft' }, { label: 'Last changed' }],
  rows: p.tests.map((t) => [
    html`${t.title || 'Untitled test'}<br><span class="hint"><code>${t.testId}</code></span>`,
    t.currentVersion === 0 ? 'Not yet' : `Version ${t.currentVersion}`,
    t.draftRevision === null ? 'None' : `Revision ${t.draftRevision}`,
    whenShort(t.updatedAt),
  ]),
  empty: 'No tests yet.',
})}
${p.pager}`;
  return portalLayout({ title: 'Tests', principal: p.principal, current: 'tests', main, flash: p.flash ?? null });
}
