import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { Institution } from '../../institutions/institutions.js';
import type { StaffPrincipal } from '../../staff/principal.js';
import type { AdminTestView } from '../../catalog/tests-service.js';
import { csrfField, dataTable, fieldId, postButton, statusBadge, when, whenShort, type Flash } from '../ui/components.js';
import { portalLayout } from '../ui/layout.js';
import type { LineError } from './check-test-json.js';
import type { AiAgreement } from '../../marking/ai/get-ai-agreement.js';
import { agreementSection } from './agreement-view.js';
import { newTestForm } from './own-tests-view.js';
import { questionTypeNames } from '../../catalog/question-types/registry.js';

/** The types the JSON hint names in its own words; a registered type beyond them is added after. */
const LISTED = ['single_choice', 'multiple_choice', 'short_text', 'numeric', 'essay', 'matching', 'ordering', 'fill_blanks', 'file_upload'];

/** The test editor: JSON with its problems listed by line, a sandboxed preview of the student page, publications. */

/** Each problem with its line number and that line of the JSON, linked to the editor (portal.js moves the caret there). */
function problems(errors: LineError[], json: string): SafeHtml {
  if (errors.length === 0) return html``;
  const lines = json.split('\n');
  const excerpt = (line: number | null) =>
    line !== null && lines[line - 1] !== undefined ? html`<code class="excerpt"><span class="line-no">${line}</span> ${lines[line - 1]!.trim().slice(0, 160)}</code>` : '';
  return html`<div class="error-summary" role="alert" tabindex="-1" id="error-summary">
<h2>There ${errors.length === 1 ? 'is a problem' : `are ${errors.length} problems`} in the JSON</h2>
<ul>${errors.map(
    (e) =>
      html`<li><a href="#${fieldId('json')}" data-line="${e.line ?? ''}">${e.line !== null && !e.message.startsWith('Line ') ? `Line ${e.line}: ` : ''}${e.field !== 'json' ? html`<code>${e.field}</code> ` : ''}${e.message}</a>${excerpt(e.line)}</li>`,
  )}</ul>
</div>`;
}

export function editorPage(p: {
  principal: StaffPrincipal;
  test: AdminTestView | null;
  json: string;
  errors: LineError[];
  institutions: Institution[];
  flash?: Flash | null;
  agreement?: AiAgreement | null;
}): string {
  const t = p.test;
  const action = t ? `/portal/tests/${t.testId}` : '/portal/tests';
  const title = t ? `Edit ${t.title}` : 'New test';
  const main = html`<nav class="breadcrumbs" aria-label="Breadcrumb"><ol><li><a href="/portal/tests">Tests</a></li><li aria-current="page">${t ? t.title : 'New test'}</li></ol></nav>
<h1>${title}</h1>
${t ? html`<p class="lede">Version ${t.version}, last changed ${when(t.updatedAt)}. Saving writes version ${t.version + 1}; assignments already made keep the version they pinned.</p>` : html`<p class="lede">Write the test in the operator API's JSON format. Problems are listed by line.</p>`}
${problems(p.errors, p.json)}
<form method="post" action="${action}" class="panel">
${csrfField(p.principal.sessionCsrf)}
<div class="field${p.errors.length > 0 ? ' has-error' : ''}">
<label for="${fieldId('json')}">Test JSON</label>
<p class="hint" id="json-hint">Fields: title, description, durationMinutes, proctoring (none, record, live_ai), marking (auto, manual, hybrid), resultVisibility (immediate, after_review), passPercent, and questions (a flat test) or sections (each with title, instructions, shuffleQuestions, draw, questions). Question types: single_choice, multiple_choice, short_text, numeric, essay, matching, ordering, fill_blanks, file_upload, ${questionTypeNames().filter((t) => !LISTED.includes(t)).map((t) => `${t}, `).join('')}composite (docs/test-format.md).</p>
<textarea id="${fieldId('json')}" name="json" class="code" rows="30" spellcheck="false" autocapitalize="off" aria-describedby="json-hint"${p.errors.length > 0 ? html` aria-invalid="true"` : ''}>
${p.json}</textarea>
</div>
<button type="submit" class="button primary">${t ? 'Save new version' : 'Create test'}</button>
</form>
${t ? publications(p.principal, t, p.institutions) : ''}
${p.agreement ? agreementSection(p.agreement) : ''}
${t
  ? html`<h2 id="preview-title">Preview of the student page</h2>
<p class="hint">How the current version looks to a student (without its script: nothing can be answered or submitted here).</p>
<iframe class="preview-frame" src="/portal/tests/${t.testId}/preview" sandbox="allow-same-origin" title="Preview of the student page for ${t.title}"></iframe>`
  : ''}`;
  return portalLayout({ title, principal: p.principal, current: 'tests', main, flash: p.flash ?? null });
}

function publications(principal: StaffPrincipal, t: AdminTestView, institutions: Institution[]): SafeHtml {
  const published = new Set(t.publishedTo);
  return html`<h2>Publications</h2>
<p class="hint">A published test can be assigned by the institution's integration. Unpublishing stops new assignments; started ones continue.</p>
${dataTable({
  caption: 'Institutions this test is published to',
  stack: true,
  columns: [{ label: 'Institution' }, { label: 'Published' }, { label: 'Action' }],
  rows: institutions.map((i) => [
    html`${i.name}${i.status === 'suspended' ? html` ${statusBadge('suspended')}` : ''}`,
    published.has(i.institutionId) ? 'Yes' : 'No',
    postButton({
      action: `/portal/tests/${t.testId}/publications`,
      label: html`${published.has(i.institutionId) ? 'Unpublish' : 'Publish'}<span class="sr-only"> for ${i.name}</span>`,
      csrf: principal.sessionCsrf,
      fields: { institution: i.institutionId, action: published.has(i.institutionId) ? 'unpublish' : 'publish' },
      variant: published.has(i.institutionId) ? 'secondary' : 'primary',
    }),
  ]),
  empty: 'No institutions yet.',
})}`;
}

export function testsListPage(p: {
  principal: StaffPrincipal;
  tests: Array<{ testId: string; title: string; version: number; marking: string; resultVisibility: string; publishedTo: string[]; updatedAt: Date }>;
  total: number;
  names: Map<string, string>;
  pager: SafeHtml;
  flash?: Flash | null;
}): string {
  const main = html`<div class="page-head"><h1>Tests</h1><p class="page-actions">${newTestForm(p.principal.sessionCsrf)} <a href="/portal/tests/import" class="button secondary">Import a test</a> <a href="/portal/tests/new" class="button secondary">New test from JSON</a></p></div>
<p class="lede">Every test on the platform (${p.total}), newest first. Open one to edit it in the form; its JSON page previews the current version and publishes it to institutions.</p>
${dataTable({
  caption: 'Tests, newest first',
  stack: true,
  columns: [{ label: 'Title' }, { label: 'Version', numeric: true }, { label: 'Marking' }, { label: 'Published to' }, { label: 'Last changed' }],
  rows: p.tests.map((t) => [
    html`<a href="/portal/tests/${t.testId}/edit">${t.title}</a><br><span class="hint"><code>${t.testId}</code> · <a href="/portal/tests/${t.testId}">JSON, publications</a> · <a href="/portal/tests/${t.testId}/statistics">Statistics<span class="sr-only"> of ${t.title}</span></a></span>`,
    t.version,
    `${t.marking}, results ${t.resultVisibility === 'immediate' ? 'at once' : 'after review'}`,
    t.publishedTo.length === 0 ? 'Nobody' : t.publishedTo.map((id) => p.names.get(id) ?? id).join(', '),
    whenShort(t.updatedAt),
  ]),
  empty: 'No tests yet.',
})}
${p.pager}`;
  return portalLayout({ title: 'Tests', principal: p.principal, current: 'tests', main, flash: p.flash ?? null });
}
