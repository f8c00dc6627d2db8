import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { TestStatistics } from '../../results/get-statistics.js';
import { facilityDiscriminationChart } from './scatter-chart.js';
import { dataTable } from '../ui/components.js';
import { portalLayout } from '../ui/layout.js';
import type { Scope } from '../ui/page.js';
import { questionTypeLabel } from '../../catalog/question-types/registry.js';

/**
 * A test's Statistics page (docs/results.md "The Statistics page"): the
 * summary (attempts, mean, SD, alpha, SEM), a chart of each question's
 * facility with the same figures as a table, each question's discrimination
 * and flags in words, and each option's choices and point-biserial. One
 * version, one mode, the acting institution's attempts only.
 */
const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(0)} %`);
const num = (v: number | null, d = 2) => (v === null ? '–' : v.toFixed(d));

/** A prompt as one short line for the tables (the statistics read the stored text, Markdown or not). */
function shortPrompt(prompt: string): string {
  const plain = prompt.replace(/!\[([^\]]*)\]\([^)]*\)/g, '[image: $1]').replace(/\s+/g, ' ').trim();
  return plain.length > 90 ? `${plain.slice(0, 89)}…` : plain;
}

export function statisticsPage(p: {
  scope: Scope;
  testId: string;
  title: string;
  stats: TestStatistics;
  versions: number[];
  livemode: boolean;
}): string {
  const s = p.stats;
  const link = (q: Record<string, string | undefined>) => p.scope.link(`/portal/tests/${p.testId}/statistics`, q);
  const filter = html`<form method="get" action="/portal/tests/${p.testId}/statistics" class="filters">
${p.scope.p.role === 'operator' ? html`<input type="hidden" name="institution" value="${p.scope.institutionId}">` : ''}
<div class="field"><label for="stat-version">Version</label><select id="stat-version" name="version">${p.versions.map((v) => html`<option value="${v}"${v === s.version ? html` selected` : ''}>Version ${v}</option>`)}</select></div>
<div class="field"><label for="stat-mode">Data</label><select id="stat-mode" name="mode"><option value="live"${p.livemode ? html` selected` : ''}>Live</option><option value="test"${p.livemode ? '' : html` selected`}>Test mode</option></select></div>
<div class="field"><button type="submit" class="button secondary">Show</button></div>
</form>`;
  const summary = html`<dl class="cards">
<div><dt>Attempts</dt><dd>${s.attempts}</dd></div>
<div><dt>Mean score</dt><dd>${s.meanPercent === null ? '–' : `${s.meanPercent.toFixed(1)} %`}</dd></div>
<div><dt>Standard deviation</dt><dd>${s.standardDeviation === null ? '–' : html`${s.standardDeviation.toFixed(1)} <span class="unit">percentage points</span>`}</dd></div>
<div><dt>Reliability (Cronbach's alpha)</dt><dd>${num(s.alpha)}</dd></div>
<div><dt>Standard error of measurement</dt><dd>${s.standardError === null ? '–' : html`${s.standardError.toFixed(1)} <span class="unit">percentage points</span>`}</dd></div>
</dl>`;
  const items = s.items.map((it, i) => ({ ...it, n: i + 1 }));
  const body: SafeHtml =
    s.attempts === 0
      ? html`<p class="notice">No completed attempt with a final score for version ${s.version} in ${p.livemode ? 'live' : 'test-mode'} data yet. Statistics appear here once candidates finish and their marking is final.</p>`
      : html`${summary}
<p class="hint stats-hint">Facility is the mean mark as a share of the question's points (how easy it was). Discrimination is the correlation of the question's mark with the rest of the test (above 0.2 separates stronger from weaker candidates; below 0 suggests a wrong key). Alpha is computed over ${s.alphaItems} ${s.alphaItems === 1 ? 'question' : 'questions'} outside pools. ${s.attempts < 30 ? 'With fewer than 30 attempts, read every figure as a rough guide.' : ''}</p>
<h2 id="facility-heading">Facility and discrimination</h2>
<figure class="chart-figure" aria-labelledby="facility-heading">
${facilityDiscriminationChart(items)}
<figcaption class="hint">Each circle is a question, by its number. Questions in the shaded band (discrimination under 0.2) tell stronger and weaker candidates apart poorly; below 0, check the key. The same figures are in the table below.</figcaption>
</figure>
${dataTable({
  caption: 'Questions: facility, discrimination and flags',
  stack: true,
  columns: [{ label: 'Question' }, { label: 'Type' }, { label: 'Attempts', numeric: true }, { label: 'Facility', numeric: true }, { label: 'Discrimination', numeric: true }, { label: 'Flags' }],
  rows: items.map((it) => [
    html`<a href="#item-${it.n}">${it.n}</a>. ${shortPrompt(it.prompt)}${it.section ? html`<br><span class="hint">${it.section}</span>` : ''}`,
    questionTypeLabel(it.type),
    it.attempts,
    pct(it.facility),
    num(it.discrimination),
    it.flags.length === 0 ? 'None' : it.flags.join('; '),
  ]),
  empty: 'No questions.',
})}
<h2>Options of the choice questions</h2>
${items.filter((it) => it.options).length === 0 ? html`<p>This version has no choice questions.</p>` : ''}
${items
  .filter((it) => it.options)
  .map((it) =>
    html`<div id="item-${it.n}">${dataTable({
      caption: `Question ${it.n}: ${shortPrompt(it.prompt)}`,
      stack: true,
      columns: [{ label: 'Option' }, { label: 'Correct' }, { label: 'Chosen', numeric: true }, { label: 'Point-biserial', numeric: true }],
      rows: it.options!.map((o) => [shortPrompt(o.text), o.correct ? 'Yes' : 'No', o.chosen, num(o.pointBiserial)]),
      empty: 'No options.',
    })}</div>`,
  )}`;
  const main = html`<nav class="breadcrumbs" aria-label="Breadcrumb"><ol><li><a href="${p.scope.link('/portal/tests')}">Tests</a></li><li aria-current="page">${p.title}</li></ol></nav>
<h1>Statistics: ${p.title}</h1>
<p class="lede">Version ${s.version}, ${p.livemode ? 'live' : 'test-mode'} data of ${p.scope.institutionName}: every completed attempt with a final score. <a href="${link({ version: String(s.version), mode: p.livemode ? 'live' : 'test' })}">Link to this view</a>.</p>
${filter}
${body}`;
  return portalLayout({ title: `Statistics: ${p.title}`, principal: p.scope.p, current: 'tests', main, institutionId: p.scope.institutionId, institutionName: p.scope.institutionName });
}
