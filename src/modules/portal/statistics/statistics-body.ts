import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { Translator } from '../../../platform/i18n/catalogue.js';
import { richText } from '../ui/portal-text.js';
import type { TestStatistics } from '../../results/get-statistics.js';
import { facilityDiscriminationChart } from './scatter-chart.js';
import { dataTable } from '../ui/components.js';
import { questionTypeLabel } from '../../catalog/question-types/registry.js';
import { contentLangAttrs, contentMark, ownText, type ContentLang } from '../../catalog/content/content-lang.js';
import { DEFAULT_LANGUAGE } from '../../catalog/translations/translation-schema.js';
import { contentText, renderContent } from '../../catalog/content/render-content.js';
import { staffAssetUrl, type ContentFormat } from '../../catalog/content/content-format.js';

/**
 * The figures of a test's Statistics page (docs/results.md "The Statistics
 * page"): the summary (attempts, mean, SD, alpha, SEM), the CSV link, a chart
 * of each question's facility with the same figures as a table, each
 * question's discrimination and flags in words, and each option's choices and
 * point-biserial. What costs the page its time is here (each prompt and
 * option rendered or cut to plain text, the chart), so it is rendered on a
 * worker-pool thread (statistics-page-task.ts); the frame around it
 * (statistics-view.ts) is drawn on the loop.
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

/** The page's language marks for the version's texts (the source's), where they are not the page's. */
export function statisticsMarks(language: StatisticsLanguage | null, t: Translator): { mark: ContentLang; isolate: boolean } {
  return { mark: language ? contentMark(language, language.language ?? DEFAULT_LANGUAGE, t.lang) : null, isolate: false };
}

/** The version's declared language and whether it has translations. */
export interface StatisticsLanguage {
  language: string | null;
  translated: boolean;
}

export function statisticsBody(p: { stats: TestStatistics; livemode: boolean; language: StatisticsLanguage | null; csvHref: string; t: Translator }): SafeHtml {
  const t = p.t;
  const marks = statisticsMarks(p.language, t);
  const own = (text: string | null) => ownText(marks, text);
  const s = p.stats;
  const shortPrompt = (source: string) => shortText(source, s.contentFormat);
  const cell = (source: string) => cellText(source, s.contentFormat, marks);
  const points = (v: number) => richText(t, 'portal.statistics.percentagePoints', { value: v.toFixed(1), unit: html`<span class="unit">${t.t('portal.statistics.percentagePointsUnit')}</span>` });
  const summary = html`<dl class="cards">
<div><dt>${t.t('portal.statistics.attempts')}</dt><dd>${s.attempts}</dd></div>
<div><dt>${t.t('portal.statistics.mean')}</dt><dd>${s.meanPercent === null ? '–' : t.t('portal.statistics.percent', { value: s.meanPercent.toFixed(1) })}</dd></div>
<div><dt>${t.t('portal.statistics.sd')}</dt><dd>${s.standardDeviation === null ? '–' : points(s.standardDeviation)}</dd></div>
<div><dt>${richText(t, 'portal.statistics.alpha')}</dt><dd>${num(s.alpha)}</dd></div>
<div><dt>${t.t('portal.statistics.sem')}</dt><dd>${s.standardError === null ? '–' : points(s.standardError)}</dd></div>
</dl>`;
  const items = s.items.map((it, i) => ({ ...it, n: i + 1 }));
  const download = html`<p class="actions"><a class="button" href="${p.csvHref}" download>${t.t('portal.statistics.csv')}</a> <span class="hint">${t.t('portal.statistics.csvHint')}</span></p>`;
  return s.attempts === 0
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
}
