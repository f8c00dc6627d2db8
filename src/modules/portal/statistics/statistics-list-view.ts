import { html } from '../../../platform/web/html.js';
import type { StatisticsTestRow } from '../../results/statistics-tests.js';
import { dataTable, pager } from '../ui/components.js';
import { layoutFor, type Scope } from '../ui/page.js';
import { richText } from '../ui/portal-text.js';

/**
 * The **Statistics** page (main navigation, every role with `read`): the
 * tests whose statistics the institution may read, each with its newest
 * version, its live attempts counted so far and a link to its Statistics
 * page. The way in for viewers and reviewers, who have no Tests page, and
 * the breadcrumb every Statistics page leads back to.
 */
export function statisticsListPage(scope: Scope, p: { rows: StatisticsTestRow[]; page: number; pages: number }): string {
  const { t } = scope;
  const pageHref = (n: number) => scope.link('/portal/statistics', { page: n > 1 ? String(n) : undefined });
  const main = html`<h1>${t.t('portal.nav.statistics')}</h1>
<p class="lede">${richText(t, 'portal.statisticsList.lede', { institution: scope.institutionName })}</p>
${dataTable({
  caption: t.t('portal.statisticsList.caption', { institution: scope.institutionName }),
  stack: true,
  columns: [{ label: t.t('portal.statisticsList.test') }, { label: t.t('portal.statisticsList.version'), numeric: true }, { label: t.t('portal.statisticsList.attempts'), numeric: true }],
  rows: p.rows.map((r) => [
    html`<a href="${scope.link(`/portal/tests/${r.testId}/statistics`)}">${r.title}</a><br><span class="hint"><code>${r.testId}</code></span>`,
    r.version,
    r.attempts,
  ]),
  empty: t.t('portal.statisticsList.none'),
})}
${pager({ label: t.t('portal.statisticsList.pages'), newerHref: p.page > 1 ? pageHref(p.page - 1) : null, olderHref: p.page < p.pages ? pageHref(p.page + 1) : null, newerText: t.t('portal.statisticsList.previous'), olderText: t.t('portal.statisticsList.next'), t })}`;
  return layoutFor(scope, { title: t.t('portal.nav.statistics'), current: 'statistics', main });
}
