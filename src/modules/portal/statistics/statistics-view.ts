import { html, type SafeHtml } from '../../../platform/web/html.js';
import { richText } from '../ui/portal-text.js';
import type { TestStatistics } from '../../results/get-statistics.js';
import { facilityDiscriminationChart } from './scatter-chart.js';
import { dataTable } from '../ui/components.js';
import { portalLayout } from '../ui/layout.js';
import type { Scope } from '../ui/page.js';
import { questionTypeLabel } from '../../catalog/question-types/registry.js';
import { contentLangAttrs, contentMark, ownText, type ContentLang } from '../../catalog/content/content-lang.js';
import { DEFAULT_LANGUAGE } from '../../catalog/translations/translation-schema.js';
import { contentText, renderContent } from '../../catalog/content/render-content.js';
import { staffAssetUrl, type ContentFormat } from '../../catalog/content/content-format.js';

/**
 * A test's Statistics page (docs/results.md "The Statistics page"): the
 * summary (attempts, mean, SD, alpha, SEM), a chart of each question's
 * facility with the same figures as a table, each question's discrimination
 * and flags in words, and each option's choices and point-biserial. One
 * version, one mode, the acting institution's attempts only.
 */
const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(0)} %`);
const num = (v: number | null, d = 2) => (v === null ? '–' : v.toFixed(d));

const SHORT = 90;

/** A text as one short plain line (contentText: Markdown's words, a formula as its TeX source, an image as its alt text). */
export function shortText(source: string, format: ContentFormat): string {
  const plain = contentText(source, format).replace(/\s+/g, ' ').trim();
  return plain.length > SHORT ? `${plain.slice(0, SHORT - 1)}…` : plain;
}

/** Block syntax (a blank line, a list, a quote, a heading, a display formula): what a table's line cannot hold. */
const BLOCK = /\n\s*\n|^\s*(?:[-*+>#]|\d+[.)])\s|\$\$|^\s*(?:```|~~~)/m;

/**
 * A question's or an option's text in a table cell. A short Markdown text
 * of one paragraph is rendered as the student page renders an option
 * (phrasing only: emphasis, code, formulas as MathML, a small image); a
 * longer one, or one with block syntax, is cut to one plain line
 * (shortText), since a rendered prompt cut short would be broken markup.
 * Marked with its language as the page's other texts of the author's.
 */
function cellText(source: string, format: ContentFormat, marks: { mark: ContentLang; isolate: boolean }): SafeHtml | string {
  const short = shortText(source, format);
  if (format === 'plain' || short.endsWith('…') || BLOCK.test(source)) return ownText(marks, short);
  const rendered = html`<span class="stats-text">${renderContent(source, format, { assetUrl: staffAssetUrl, inline: true })}</span>`;
  if (marks.mark) return html`<bdi${contentLangAttrs(marks.mark)}>${rendered}</bdi>`;
  return marks.isolate ? html`<bdi>${rendered}</bdi>` : rendered;
}

export function statisticsPage(p: {
  scope: Scope;
  testId: string;
  title: string;
  stats: TestStatistics;
  versions: number[];
  livemode: boolean;
  /** The version's declared language and whether it has translations: its texts (the source's) carry their language where it is not the page's. */
  language?: { language: string | null; translated: boolean } | null;
}): string {
  const t = p.scope.t;
  const marks = { mark: p.language ? contentMark(p.language, p.language.language ?? DEFAULT_LANGUAGE, t.lang) : null, isolate: false };
  const own = (text: string | null) => ownText(marks, text);
  const s = p.stats;
  const shortPrompt = (source: string) => shortText(source, s.contentFormat);
  const cell = (source: string) => cellText(source, s.contentFormat, marks);
  const points = (v: number) => richText(t, 'portal.statistics.percentagePoints', { value: v.toFixed(1), unit: html`<span class="unit">${t.t('portal.statistics.percentagePointsUnit')}</span>` });
  const link = (q: Record<string, string | undefined>) => p.scope.link(`/portal/tests/${p.testId}/statistics`, q);
  const filter = html`<form method="get" action="/portal/tests/${p.testId}/statistics" class="filters">
${p.scope.p.role === 'operator' ? html`<input type="hidden" name="institution" value="${p.scope.institutionId}">` : ''}
<div class="field"><label for="stat-version">${t.t('portal.statistics.version')}</label><select id="stat-version" name="version">${p.versions.map(
    (v) => html`<option value="${v}"${v === s.version ? html` selected` : ''}>${t.t('portal.statistics.versionN', { version: String(v) })}</option>`,
  )}</select></div>
<div class="field"><label for="stat-mode">${t.t('portal.statistics.data')}</label><select id="stat-mode" name="mode"><option value="live"${p.livemode ? html` selected` : ''}>${t.t(
    'portal.assignments.mode.live',
  )}</option><option value="test"${p.livemode ? '' : html` selected`}>${t.t('portal.marking.perTest.testMode')}</option></select></div>
<div class="field"><button type="submit" class="button secondary">${t.t('portal.statistics.show')}</button></div>
</form>`;
  const summary = html`<dl class="cards">
<div><dt>${t.t('portal.statistics.attempts')}</dt><dd>${s.attempts}</dd></div>
<div><dt>${t.t('portal.statistics.mean')}</dt><dd>${s.meanPercent === null ? '–' : t.t('portal.statistics.percent', { value: s.meanPercent.toFixed(1) })}</dd></div>
<div><dt>${t.t('portal.statistics.sd')}</dt><dd>${s.standardDeviation === null ? '–' : points(s.standardDeviation)}</dd></div>
<div><dt>${richText(t, 'portal.statistics.alpha')}</dt><dd>${num(s.alpha)}</dd></div>
<div><dt>${t.t('portal.statistics.sem')}</dt><dd>${s.standardError === null ? '–' : points(s.standardError)}</dd></div>
</dl>`;
  const items = s.items.map((it, i) => ({ ...it, n: i + 1 }));
  const csvHref = p.scope.link(`/portal/tests/${p.testId}/statistics.csv`, { version: String(s.version), mode: p.livemode ? 'live' : 'test' });
  const download = html`<p class="actions"><a class="button" href="${csvHref}" download>${t.t('portal.statistics.csv')}</a> <span class="hint">${t.t('portal.statistics.csvHint')}</span></p>`;
  const body: SafeHtml =
    s.attempts === 0
      ? html`<p class="notice">${t.t('portal.statistics.none', { version: String(s.version), mode: p.livemode ? 'live' : 'test' })}</p>`
      : html`${summary}
${download}
<p class="hint stats-hint">${richText(t, 'portal.statistics.hint', { items: s.alphaItems, count: String(s.alphaItems) })} ${s.attempts < 30 ? t.t('portal.statistics.roughGuide') : ''}</p>
<h2 id="facility-heading">${t.t('portal.statistics.facilityHeading')}</h2>
<figure class="chart-figure" aria-labelledby="facility-heading">
${facilityDiscriminationChart(items, t)}
<figcaption class="hint">${t.t('portal.statistics.chartCaption')}</figcaption>
</figure>
${dataTable({
  caption: t.t('portal.statistics.questionsCaption'),
  stack: true,
  columns: [
    { label: t.t('portal.statistics.question') },
    { label: t.t('portal.statistics.type') },
    { label: t.t('portal.statistics.attempts'), numeric: true },
    { label: t.t('portal.statistics.facility'), numeric: true },
    { label: t.t('portal.statistics.discrimination'), numeric: true },
    { label: t.t('portal.statistics.flags') },
  ],
  rows: items.map((it) => [
    html`<a href="#item-${it.n}">${it.n}</a>. ${cell(it.prompt)}${it.section ? html`<br><span class="hint">${own(it.section)}</span>` : ''}`,
    questionTypeLabel(it.type),
    it.attempts,
    pct(it.facility),
    num(it.discrimination),
    it.flags.length === 0 ? t.t('portal.statistics.noFlags') : it.flags.join('; '),
  ]),
  empty: t.t('portal.assignment.noQuestions'),
})}
<h2>${t.t('portal.statistics.optionsHeading')}</h2>
${items.filter((it) => it.options).length === 0 ? html`<p>${t.t('portal.statistics.noChoiceQuestions')}</p>` : ''}
${items
  .filter((it) => it.options)
  .map((it) =>
    html`<div id="item-${it.n}">${dataTable({
      caption: t.t('portal.statistics.optionsCaption', { n: it.n, prompt: shortPrompt(it.prompt) }),
      stack: true,
      columns: [
        { label: t.t('portal.statistics.option') },
        { label: t.t('portal.statistics.correct') },
        { label: t.t('portal.statistics.chosen'), numeric: true },
        { label: t.t('portal.statistics.pointBiserial'), numeric: true },
      ],
      rows: it.options!.map((o) => [cell(o.text), o.correct ? t.t('portal.statistics.yes') : t.t('portal.statistics.no'), o.chosen, num(o.pointBiserial)]),
      empty: t.t('portal.statistics.noOptions'),
    })}</div>`,
  )}`;
  const main = html`<nav class="breadcrumbs" aria-label="${t.t('portal.breadcrumb')}"><ol><li><a href="${p.scope.link('/portal/statistics')}">${t.t('portal.nav.statistics')}</a></li><li aria-current="page">${own(p.title)}</li></ol></nav>
<h1>${richText(t, 'portal.statistics.title', { test: html`${own(p.title)}` })}</h1>
<p class="lede">${richText(t, p.livemode ? 'portal.statistics.ledeLive' : 'portal.statistics.ledeTest', {
    version: String(s.version),
    institution: p.scope.institutionName,
    link: html`<a href="${link({ version: String(s.version), mode: p.livemode ? 'live' : 'test' })}">${t.t('portal.statistics.linkToView')}</a>`,
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
