import { escapeHtml, html, SafeHtml } from '../../platform/web/html.js';
import type { Translator } from '../../platform/i18n/catalogue.js';
import { FSI, isolated, LRI, needsIsolation, PDI, RLI, type ReportContent } from './report-content.js';
import { contentLangAttrs } from '../catalog/content/content-lang.js';

/**
 * The report as a printable page: the student pages' stylesheet plus the
 * report's own (assets/report.css: print layout, in CSS logical properties so
 * a right-to-left report mirrors; a test-mode report adds its notice in the
 * margin of every printed page, assets/report-test-mode.css or its
 * translation, report-assets.ts). Landmarks, one h1, tables with captions and
 * header cells, a definition list for the facts. `<html lang dir>` is the
 * report's language; values that could run against the text around them
 * (numbers and ids in a right-to-left report, right-to-left names in any)
 * are isolated in `<bdi>`; the author's texts, when in another language than
 * the report, in `<bdi lang dir>` of their language.
 */
/** Long header words may break at a soft hyphen on a phone, so a five-column table fits 360 px without scrolling. */
const SOFT = '\u00AD';
const hyphenable = (label: string) => label.replace('Confirmed', `Con${SOFT}firmed`).replace('Dismissed', `Dis${SOFT}missed`).replace('Awaiting', `Await${SOFT}ing`);

export function reportPage(c: ReportContent, institutionName: string): string {
  // The author's texts are isolated in their language's direction (LRI or RLI: report-content.ts), and say which language it is.
  const contentBdi = `<bdi${String(contentLangAttrs(c.contentLang))}>`;
  /** Content text: escaped, its isolate marks (report-content.ts) as `<bdi>` elements. */
  const text = (s: string) =>
    new SafeHtml(escapeHtml(s).replaceAll(FSI, '<bdi>').replaceAll(LRI, contentBdi).replaceAll(RLI, contentBdi).replaceAll(PDI, '</bdi>'));
  // A value on its own (a cell, a fact): isolated when it could run against the report's direction.
  const value = (s: string) => (needsIsolation(c.dir, s) && !isolated(s) ? html`<bdi>${text(s)}</bdi>` : text(s));
  const table = (caption: string, columns: string[], rows: string[][]): SafeHtml =>
    // A narrow screen scrolls the table, not the page: a focusable, named region (keyboard users can scroll it too).
    html`<div class="table-scroll" role="region" aria-label="${caption}" tabindex="0"><table class="report-table"><caption>${caption}</caption>
<thead><tr>${columns.map((col, i) => html`<th scope="col"${i > 0 ? html` class="num"` : ''}>${hyphenable(col)}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr>${r.map((cell, i) => (i === 0 ? html`<th scope="row">${value(cell)}</th>` : html`<td class="num">${value(cell)}</td>`))}</tr>`)}</tbody>
</table></div>`;
  const facts = (pairs: Array<[string, string]>) => html`<dl class="report-facts">${pairs.map(([k, v]) => html`<div><dt>${k}</dt><dd>${value(v)}</dd></div>`)}</dl>`;
  const testModeSheet = c.locale === 'en' ? 'report-test-mode.css' : `report-test-mode.${c.locale}.css`;
  return `<!doctype html>${html`<html lang="${c.lang}" dir="${c.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${c.documentTitle}</title>
<link rel="stylesheet" href="/assets/student.css">
<link rel="stylesheet" href="/reports/assets/report.css">
${c.testMode ? html`<link rel="stylesheet" href="/reports/assets/${testModeSheet}">` : ''}
</head>
<body class="report">
<header class="site-header">${c.testMode ? html`<div class="test-mode-banner report-test-mode" id="test-mode-notice"><p><strong class="test-mode-tag">${c.testMode.tag}<span class="sr-only">${c.testMode.tagEnd}</span></strong> ${c.testMode.body}</p></div>` : ''}<p class="institution">${value(institutionName)}</p></header>
<main id="main">
<h1>${text(c.title)}</h1>
<section aria-labelledby="about"><h2 id="about">${c.headings.candidateAndTest}</h2>${facts(c.details)}</section>
<section aria-labelledby="result"><h2 id="result">${c.headings.result}</h2>${facts(c.result)}
${c.sections ? table(c.headings.scoreBySection, c.sections.columns, c.sections.rows) : ''}
${c.questions ? table(c.headings.pointsByQuestion, c.questions.columns, c.questions.rows) : ''}</section>
${c.feedback ? feedbackSection(c.feedback) : ''}
<section aria-labelledby="integrity"><h2 id="integrity">${c.headings.integrity}</h2>
${c.integrity ? html`<p>${text(c.integrity.summary)}</p>${table(c.headings.flagsTable, c.integrity.columns, c.integrity.rows)}` : html`<p>${c.notProctored}</p>`}</section>
<p class="report-print"><a href="?format=pdf">${c.downloadPdf}</a></p>
</main>
<footer class="site-footer"><p>${text(c.footer)}</p></footer>
</body>
</html>`}`;
}

/** The reviewer's feedback: each part under its label, in paragraphs, line breaks kept; each paragraph in its own direction (`dir="auto"` in place of the isolate marks). */
function feedbackSection(f: NonNullable<ReportContent['feedback']>): SafeHtml {
  const plain = (s: string) => s.replace(/^[\u2066-\u2068]|\u2069$/gu, '');
  return html`<section aria-labelledby="feedback" class="report-feedback"><h2 id="feedback">${f.heading}</h2>
${f.items.map(
  (item) => html`<h3>${item.label}</h3>${item.paragraphs.map((para) => html`<p dir="auto">${plain(para).split('\n').map((line, i) => (i === 0 ? html`${line}` : html`<br>${line}`))}</p>`)}`,
)}</section>`;
}

/** What a link that is not valid (tampered, expired, or for no report) shows: nothing about anyone, in the browser's language. */
export function reportNotFoundPage(t: Translator): string {
  return noticePage(t, t.t('report.linkNotValidTitle'), html`<h1>${t.t('report.linkNotValid')}</h1>
<p>${t.t('report.linkNotValidBody', { minutes: 15 })}</p>`);
}

/**
 * What the PDF link shows when the PDF cannot be drawn now (the worker pool
 * is full, or the drawing ran past its time): 503 with Retry-After, in the
 * report's language, a link to try again and the report as a page, which
 * costs the server little and is ready at once.
 */
export function reportBusyPage(t: Translator): string {
  return noticePage(t, t.t('report.busyTitle'), html`<h1>${t.t('report.busy')}</h1>
<p>${t.t('report.busyBody')}</p>
<p><a href="?format=pdf">${t.t('report.busyRetry')}</a></p>
<p><a href="?format=html">${t.t('report.busyOpenPage')}</a></p>`);
}

/** A short page of the report's links, instead of a report: not indexed, in the translator's language and direction. */
function noticePage(t: Translator, title: string, main: SafeHtml): string {
  return `<!doctype html>${html`<html lang="${t.lang}" dir="${t.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<link rel="stylesheet" href="/assets/student.css">
</head>
<body>
<header class="site-header"><p class="institution">Assay</p></header>
<main id="main">
${main}
</main>
</body>
</html>`}`;
}
