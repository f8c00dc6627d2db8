import { html, SafeHtml } from '../../../platform/web/html.js';
import { richText } from '../ui/portal-text.js';
import { portalLayout } from '../ui/layout.js';
import type { Scope } from '../ui/page.js';
import { ownText } from '../../catalog/content/content-lang.js';
import { statisticsMarks, type StatisticsLanguage } from './statistics-body.js';

/**
 * A test's Statistics page (docs/results.md "The Statistics page"): the
 * frame (breadcrumbs, title, the version and data selectors) around the
 * figures, which statistics-body.ts renders on a worker-pool thread and
 * which arrive here as HTML. One version, one mode, the acting
 * institution's attempts only.
 */
export function statisticsPage(p: {
  scope: Scope;
  testId: string;
  title: string;
  /** The version shown. */
  version: number;
  versions: number[];
  livemode: boolean;
  /** The version's declared language and whether it has translations: its texts (the source's) carry their language where it is not the page's. */
  language?: StatisticsLanguage | null;
  /** The figures (statisticsBody), rendered HTML. */
  body: string;
}): string {
  const t = p.scope.t;
  const marks = statisticsMarks(p.language ?? null, t);
  const own = (text: string | null) => ownText(marks, text);
  const link = (q: Record<string, string | undefined>) => p.scope.link(`/portal/tests/${p.testId}/statistics`, q);
  const body = new SafeHtml(p.body);
  const filter = html`<form method="get" action="/portal/tests/${p.testId}/statistics" class="filters">
${p.scope.p.role === 'operator' ? html`<input type="hidden" name="institution" value="${p.scope.institutionId}">` : ''}
<div class="field"><label for="stat-version">${t.t('portal.statistics.version')}</label><select id="stat-version" name="version">${p.versions.map(
    (v) => html`<option value="${v}"${v === p.version ? html` selected` : ''}>${t.t('portal.statistics.versionN', { version: String(v) })}</option>`,
  )}</select></div>
<div class="field"><label for="stat-mode">${t.t('portal.statistics.data')}</label><select id="stat-mode" name="mode"><option value="live"${p.livemode ? html` selected` : ''}>${t.t(
    'portal.assignments.mode.live',
  )}</option><option value="test"${p.livemode ? '' : html` selected`}>${t.t('portal.marking.perTest.testMode')}</option></select></div>
<div class="field"><button type="submit" class="button secondary">${t.t('portal.statistics.show')}</button></div>
</form>`;
  const main = html`<nav class="breadcrumbs" aria-label="${t.t('portal.breadcrumb')}"><ol><li><a href="${p.scope.link('/portal/statistics')}">${t.t('portal.nav.statistics')}</a></li><li aria-current="page">${own(p.title)}</li></ol></nav>
<h1>${richText(t, 'portal.statistics.title', { test: html`${own(p.title)}` })}</h1>
<p class="lede">${richText(t, p.livemode ? 'portal.statistics.ledeLive' : 'portal.statistics.ledeTest', {
    version: String(p.version),
    institution: p.scope.institutionName,
    link: html`<a href="${link({ version: String(p.version), mode: p.livemode ? 'live' : 'test' })}">${t.t('portal.statistics.linkToView')}</a>`,
  })}</p>
${filter}
${body}`;
  return portalLayout({
    title: t.t('portal.statistics.title', { test: p.title }),
    principal: p.scope.p,
    current: 'statistics',
    main,
    institutionId: p.scope.institutionId,
    institutionName: p.scope.institutionName,
    t,
  });
}
