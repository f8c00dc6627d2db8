import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { ErrorDetail } from '../../../platform/errors.js';
import type { StaffPrincipal } from '../../staff/principal.js';
import type { ImportReport } from '../../catalog/interchange/report.js';
import { dataTable, fieldId } from '../ui/components.js';
import { portalLayout } from '../ui/layout.js';
import { questionTypeLabel } from '../../catalog/question-types/registry.js';

/**
 * The Import page (docs/import-export.md "The portal"): a file input for a
 * QTI package or a CSV, a "Check only" option, and the report in words.
 */

export type ImportOutcome =
  | { kind: 'form' }
  | { kind: 'checked'; fileName: string; report: ImportReport; questions: number }
  | { kind: 'imported'; fileName: string; report: ImportReport; testId: string; title: string }
  | { kind: 'error'; fileName: string | null; message: string; details: ErrorDetail[] };

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function reportSection(report: ImportReport, heading: string): SafeHtml {
  return html`<h2 id="report-title">${heading}</h2>
<p>${plural(report.imported, 'question')} ${report.imported === 1 ? 'was' : 'were'} read, ${plural(report.skipped.length, 'item')} skipped.</p>
${report.skipped.length > 0
  ? dataTable({
      caption: 'Skipped items, with why',
      stack: true,
      columns: [{ label: 'File' }, { label: 'Identifier' }, { label: 'Interaction' }, { label: 'Reason' }],
      rows: report.skipped.map((s) => [html`<code>${s.file}</code>`, s.identifier || '—', s.interaction, s.reason]),
      empty: 'None.',
    })
  : ''}
${report.items.length > 0
  ? dataTable({
      caption: 'Imported items: the question each became',
      stack: true,
      columns: [{ label: 'File' }, { label: 'Identifier' }, { label: 'Title' }, { label: 'Question type' }],
      rows: report.items.map((i) => [html`<code>${i.file}</code>`, i.identifier || '—', i.title || '—', questionTypeLabel(i.type)]),
      empty: 'None.',
    })
  : ''}
${report.notes.length > 0 ? html`<h3>Left out, harmless</h3><ul>${report.notes.map((n) => html`<li>${n}</li>`)}</ul>` : ''}`;
}

function outcomeSection(o: ImportOutcome): SafeHtml {
  switch (o.kind) {
    case 'form':
      return html``;
    case 'error':
      return html`<div class="error-summary" role="alert" tabindex="-1" id="error-summary">
<h2>${o.fileName ? html`<code>${o.fileName}</code> could not be imported` : 'Nothing was imported'}</h2>
<p>${o.message}</p>
${o.details.length > 0 ? html`<ul>${o.details.map((d) => html`<li>${d.field !== 'body' ? html`<code>${d.field}</code>: ` : ''}${d.message}</li>`)}</ul>` : ''}
<p>Nothing was created.</p>
</div>`;
    case 'checked':
      return html`<div class="flash flash-success" role="status"><p>Checked <code>${o.fileName}</code>: ${plural(o.questions, 'question')} would be imported. Nothing was created; choose the file again without "Check only" to import it.</p></div>
${reportSection(o.report, 'Report of the check')}`;
    case 'imported':
      return html`<div class="flash flash-success" role="status"><p>Imported <code>${o.fileName}</code> as the draft test “${o.title}” with ${plural(o.report.imported, 'question')}.</p></div>
<p class="actions"><a class="button primary" href="/portal/tests/${o.testId}/edit">Open in the editor</a> <a class="button secondary" href="/portal/authoring/tests/${o.testId}/draft">The draft as JSON</a></p>
<p class="hint">The test is a draft (<code>${o.testId}</code>): it is not assigned until it is published.</p>
${reportSection(o.report, 'Import report')}`;
  }
}

export function importPage(p: { principal: StaffPrincipal; outcome: ImportOutcome; maxMb: number }): string {
  const owner = p.principal.role === 'operator' ? 'the operators’ catalogue' : 'your institution';
  const hasError = p.outcome.kind === 'error';
  const main = html`<nav class="breadcrumbs" aria-label="Breadcrumb"><ol><li><a href="/portal/tests">Tests</a></li><li aria-current="page">Import</li></ol></nav>
<h1>Import a test</h1>
<p class="lede">From a QTI 3.0 or 2.1/2.2 content package (a .zip exported by Canvas, Moodle, TAO and others) or a CSV with one question per row. The test is created as a draft owned by ${owner}; its images become your images.</p>
${outcomeSection(p.outcome)}
${p.outcome.kind === 'form' ? '' : html`<h2>${p.outcome.kind === 'error' ? 'Try again' : 'Import another file'}</h2>`}
<form method="post" action="/portal/tests/import?csrf=${p.principal.sessionCsrf}" enctype="multipart/form-data" class="panel">
<div class="field${hasError ? ' has-error' : ''}">
<label for="${fieldId('file')}">Package or CSV file</label>
<p class="hint" id="file-hint">A .zip content package or a .csv file, up to ${p.maxMb} MB. For a CSV, start from the <a href="/portal/tests/import/template.csv" download>CSV template</a>; the formats are described in the import guide (docs/import-export.md).</p>
<input type="file" id="${fieldId('file')}" name="file" accept=".zip,.csv,application/zip,text/csv" required aria-describedby="file-hint"${hasError ? html` aria-invalid="true"` : ''}>
</div>
<div class="field">
<label for="${fieldId('title')}">Title (optional)</label>
<p class="hint" id="title-hint">The package’s own title is used when empty; a CSV is called “Imported questions”.</p>
<input type="text" id="${fieldId('title')}" name="title" maxlength="200" aria-describedby="title-hint">
</div>
<div class="field check">
<input type="checkbox" id="${fieldId('dryRun')}" name="dryRun" value="1">
<label for="${fieldId('dryRun')}">Check only: show the report, create nothing</label>
</div>
<button type="submit" class="button primary">Import</button>
</form>`;
  return portalLayout({ title: 'Import a test', principal: p.principal, current: 'tests', main });
}
