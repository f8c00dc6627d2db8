import type { Translator } from '../../../platform/i18n/catalogue.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { ErrorDetail } from '../../../platform/errors.js';
import type { StaffPrincipal } from '../../staff/principal.js';
import type { ImportReport } from '../../catalog/interchange/report.js';
import { dataTable, fieldId } from '../ui/components.js';
import { portalLayout } from '../ui/layout.js';
import { richText } from '../ui/portal-text.js';
import { questionTypeLabel } from '../../catalog/question-types/registry.js';
import { STASH_MINUTES } from './import-stash.js';

/**
 * The Import page (docs/import-export.md "The portal"): a file input for a
 * QTI package or a CSV, a "Check only" option, and the report in words.
 */

export type ImportOutcome =
  | { kind: 'form' }
  | { kind: 'checked'; fileName: string; report: ImportReport; questions: number; stash: string | null; title: string }
  | { kind: 'imported'; fileName: string; report: ImportReport; testId: string; title: string }
  | { kind: 'error'; fileName: string | null; message: string; details: ErrorDetail[] };

function reportSection(report: ImportReport, heading: string, t: Translator): SafeHtml {
  return html`<h2 id="report-title">${heading}</h2>
<p>${t.t('portal.import.report.counts', { read: report.imported, skipped: report.skipped.length })}</p>
${report.skipped.length > 0
  ? dataTable({
      caption: t.t('portal.import.report.skippedCaption'),
      stack: true,
      columns: [{ label: t.t('portal.import.report.file') }, { label: t.t('portal.import.report.identifier') }, { label: t.t('portal.import.report.interaction') }, { label: t.t('portal.import.report.reason') }],
      rows: report.skipped.map((s) => [html`<code>${s.file}</code>`, s.identifier || '—', s.interaction, s.reason]),
      empty: t.t('portal.import.report.none'),
    })
  : ''}
${report.items.length > 0
  ? dataTable({
      caption: t.t('portal.import.report.itemsCaption'),
      stack: true,
      columns: [{ label: t.t('portal.import.report.file') }, { label: t.t('portal.import.report.identifier') }, { label: t.t(report.items.every((i) => i.file === 'csv') ? 'portal.import.report.prompt' : 'portal.import.report.title') }, { label: t.t('portal.import.report.questionType') }],
      rows: report.items.map((i) => [html`<code>${i.file}</code>`, i.identifier || '—', i.title || '—', questionTypeLabel(i.type)]),
      empty: t.t('portal.import.report.none'),
    })
  : ''}
${report.notes.length > 0 ? html`<h3>${t.t('portal.import.report.notes')}</h3><ul>${report.notes.map((n) => html`<li>${n}</li>`)}</ul>` : ''}`;
}

/** A refused file's problem; a CSV row's with its prompt, so that the question can be found. */
function problemItem(d: ErrorDetail & { prompt?: string }): SafeHtml {
  const where = d.field !== 'body' ? html`<code>${d.field}</code>${d.prompt ? html` <q class="row-prompt">${d.prompt}</q>` : ''}: ` : '';
  return html`<li>${where}${d.message}</li>`;
}

function outcomeSection(o: ImportOutcome, csrf: string, t: Translator): SafeHtml {
  switch (o.kind) {
    case 'form':
      return html``;
    case 'error':
      return html`<div class="error-summary" role="alert" tabindex="-1" id="error-summary">
<h2>${o.fileName ? richText(t, 'portal.import.error.file', { file: html`<code>${o.fileName}</code>` }) : t.t('portal.import.error.nothing')}</h2>
<p>${o.message}</p>
${o.details.length > 0 ? html`<ul class="problems">${o.details.map((d) => problemItem(d))}</ul>` : ''}
<p>${t.t('portal.import.error.nothingCreated')}</p>
</div>`;
    case 'checked':
      return html`<div class="flash flash-success" role="status"><p>${richText(t, o.stash ? 'portal.import.checked' : 'portal.import.checkedNotKept', { file: html`<code>${o.fileName}</code>`, questions: o.questions, minutes: STASH_MINUTES })}</p></div>
${o.questions > 0 && o.stash
  ? html`<form method="post" action="/portal/tests/import?csrf=${csrf}" enctype="multipart/form-data" class="inline-form import-checked">
<input type="hidden" name="stash" value="${o.stash}"><input type="hidden" name="title" value="${o.title}">
<button type="submit" class="button primary">${t.t('portal.import.importChecked')}</button>
</form>`
  : ''}
${reportSection(o.report, t.t('portal.import.checkedReport'), t)}`;
    case 'imported':
      return html`<div class="flash flash-success" role="status"><p>${richText(t, 'portal.import.imported', { file: html`<code>${o.fileName}</code>`, title: o.title, questions: o.report.imported })}</p></div>
<p class="actions"><a class="button primary" href="/portal/tests/${o.testId}/edit">${t.t('portal.import.openEditor')}</a> <a class="button secondary" href="/portal/authoring/tests/${o.testId}/draft">${t.t('portal.import.draftJson')}</a></p>
<p class="hint">${richText(t, 'portal.import.isDraft', { id: html`<code>${o.testId}</code>` })}</p>
${reportSection(o.report, t.t('portal.import.report.heading'), t)}`;
  }
}

const BAR_ESCAPED = '\\|';

/** What the files may hold, in words on the page (the service serves the API reference, not the guides). */
function formatsHelp(t: Translator): SafeHtml {
  return html`<section class="panel formats-help" aria-labelledby="formats-heading">
<h2 id="formats-heading">${t.t('portal.import.formats.heading')}</h2>
<h3>${t.t('portal.import.formats.qtiHeading')}</h3>
<p>${t.t('portal.import.formats.qti')}</p>
<h3>${t.t('portal.import.formats.csvHeading')}</h3>
<p>${t.t('portal.import.formats.csv')}</p>
<ul>
<li>${richText(t, 'portal.import.formats.csvRequired', { type: html`<code>type</code>`, prompt: html`<code>prompt</code>` })}</li>
<li>${richText(t, 'portal.import.formats.csvLists', { bar: html`<code>|</code>`, escaped: html`<code>${BAR_ESCAPED}</code>` })}</li>
<li>${richText(t, 'portal.import.formats.csvCorrect', { correct: html`<code>correct</code>`, pairs: html`<code>France=Paris</code>` })}</li>
<li>${richText(t, 'portal.import.formats.csvBlanks', { text: html`<code>text</code>`, blank: html`<code>{{hydrogen|H}}</code>`, choice: html`<code>{{*oxygen|nitrogen}}</code>` })}</li>
<li>${richText(t, 'portal.import.formats.csvSections', { section: html`<code>section</code>`, draw: html`<code>draw</code>` })}</li>
</ul>
<p>${t.t('portal.import.formats.export')}</p>
</section>`;
}

export function importPage(p: { principal: StaffPrincipal; outcome: ImportOutcome; maxMb: number; t: Translator }): string {
  const { t } = p;
  const hasError = p.outcome.kind === 'error';
  const main = html`<nav class="breadcrumbs" aria-label="${t.t('portal.breadcrumb')}"><ol><li><a href="/portal/tests">${t.t('portal.nav.tests')}</a></li><li aria-current="page">${t.t('portal.import.crumb')}</li></ol></nav>
<h1>${t.t('portal.import.heading')}</h1>
<p class="lede">${t.t('portal.import.lede', { owner: p.principal.role === 'operator' ? 'operator' : 'institution' })}</p>
${outcomeSection(p.outcome, p.principal.sessionCsrf, t)}
${p.outcome.kind === 'form' ? '' : html`<h2>${p.outcome.kind === 'error' ? t.t('portal.import.tryAgain') : t.t('portal.import.another')}</h2>`}
<form method="post" action="/portal/tests/import?csrf=${p.principal.sessionCsrf}" enctype="multipart/form-data" class="panel">
<div class="field${hasError ? ' has-error' : ''}">
<label for="${fieldId('file')}">${t.t('portal.import.file')}</label>
<p class="hint" id="file-hint">${richText(t, 'portal.import.fileHint', { mb: p.maxMb, template: html`<a href="/portal/tests/import/template.csv" download>${t.t('portal.import.template')}</a>` })}</p>
<input type="file" id="${fieldId('file')}" name="file" accept=".zip,.csv,application/zip,text/csv" required aria-describedby="file-hint"${hasError ? html` aria-invalid="true"` : ''}>
</div>
<div class="field">
<label for="${fieldId('title')}">${t.t('portal.import.title')}</label>
<p class="hint" id="title-hint">${t.t('portal.import.titleHint')}</p>
<input type="text" id="${fieldId('title')}" name="title" maxlength="200" aria-describedby="title-hint">
</div>
<div class="field check">
<input type="checkbox" id="${fieldId('dryRun')}" name="dryRun" value="1">
<label for="${fieldId('dryRun')}">${t.t('portal.import.checkOnly')}</label>
</div>
<button type="submit" class="button primary">${t.t('portal.import.submit')}</button>
</form>
${formatsHelp(t)}`;
  return portalLayout({ title: t.t('portal.import.heading'), principal: p.principal, current: 'tests', main, t });
}
