import { html, type SafeHtml } from '../../platform/web/html.js';
import type { ReportContent } from './report-content.js';

/**
 * The report as a printable page: the student pages' stylesheet plus the
 * report's own (assets/report.css: print layout; a test-mode report adds
 * assets/report-test-mode.css, its notice in the margin of every printed page). Landmarks, one h1, tables with
 * captions and header cells, a definition list for the facts.
 */
/** Long header words may break at a soft hyphen on a phone, so a five-column table fits 360 px without scrolling. */
const SOFT = '\u00AD';
const hyphenable = (label: string) => label.replace('Confirmed', `Con${SOFT}firmed`).replace('Dismissed', `Dis${SOFT}missed`).replace('Awaiting', `Await${SOFT}ing`);

function table(caption: string, columns: string[], rows: string[][]): SafeHtml {
  // A narrow screen scrolls the table, not the page: a focusable, named region (keyboard users can scroll it too).
  return html`<div class="table-scroll" role="region" aria-label="${caption}" tabindex="0"><table class="report-table"><caption>${caption}</caption>
<thead><tr>${columns.map((c, i) => html`<th scope="col"${i > 0 ? html` class="num"` : ''}>${hyphenable(c)}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr>${r.map((cell, i) => (i === 0 ? html`<th scope="row">${cell}</th>` : html`<td class="num">${cell}</td>`))}</tr>`)}</tbody>
</table></div>`;
}

const facts = (pairs: Array<[string, string]>) => html`<dl class="report-facts">${pairs.map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>`;

export function reportPage(c: ReportContent, institutionName: string): string {
  return `<!doctype html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${c.testModeNotice ? 'Test mode: ' : ''}${c.title} – ${institutionName}</title>
<link rel="stylesheet" href="/assets/student.css">
<link rel="stylesheet" href="/reports/assets/report.css">
${c.testModeNotice ? html`<link rel="stylesheet" href="/reports/assets/report-test-mode.css">` : ''}
</head>
<body class="report">
<header class="site-header">${c.testModeNotice ? html`<div class="test-mode-banner report-test-mode" id="test-mode-notice"><p><strong class="test-mode-tag">Test mode<span class="sr-only">:</span></strong> ${c.testModeNotice.replace(/^Test mode: (.)/, (_, first: string) => first.toUpperCase())}</p></div>` : ''}<p class="institution">${institutionName}</p></header>
<main id="main">
<h1>${c.title}</h1>
<section aria-labelledby="about"><h2 id="about">Candidate and test</h2>${facts(c.details)}</section>
<section aria-labelledby="result"><h2 id="result">Result</h2>${facts(c.result)}
${c.sections ? table('Score by section', c.sections.columns, c.sections.rows) : ''}
${c.questions ? table('Points by question, in the order the candidate saw them', c.questions.columns, c.questions.rows) : ''}</section>
<section aria-labelledby="integrity"><h2 id="integrity">Integrity</h2>
${c.integrity ? html`<p>${c.integrity.summary}</p>${table('Proctoring flags by severity and review outcome', c.integrity.columns, c.integrity.rows)}` : html`<p>This test was not proctored.</p>`}</section>
<p class="report-print"><a href="?format=pdf">Download this report as a PDF</a></p>
</main>
<footer class="site-footer"><p>${c.footer}</p></footer>
</body>
</html>`}`;
}

/** What a link that is not valid (tampered, expired, or for no report) shows: nothing about anyone. */
export function reportNotFoundPage(): string {
  return `<!doctype html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Report link not valid – Assay</title>
<link rel="stylesheet" href="/assets/student.css">
</head>
<body>
<header class="site-header"><p class="institution">Assay</p></header>
<main id="main">
<h1>This report link is not valid</h1>
<p>Report links work for 15 minutes. Open the report again from the service that showed you the link, and it will give you a new one.</p>
</main>
</body>
</html>`}`;
}
