import type { Translator } from '../../../platform/i18n/catalogue.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { Institution } from '../../institutions/institutions.js';
import type { StaffPrincipal } from '../../staff/principal.js';
import type { AdminTestView } from '../../catalog/tests-service.js';
import { csrfField, dataTable, fieldId, postButton, statusBadge, when, whenShort, type Flash } from '../ui/components.js';
import { portalLayout } from '../ui/layout.js';
import { richText } from '../ui/portal-text.js';
import type { LineError } from './check-test-json.js';
import type { AiAgreement } from '../../marking/ai/get-ai-agreement.js';
import { agreementSection } from './agreement-view.js';
import { newTestForm, statisticsLink } from './own-tests-view.js';
import { questionTypeNames } from '../../catalog/question-types/registry.js';

/** The types the JSON hint names in its own words; a registered type beyond them is added after. */
const LISTED = ['single_choice', 'multiple_choice', 'short_text', 'numeric', 'essay', 'matching', 'ordering', 'fill_blanks', 'file_upload'];

/** The test editor: JSON with its problems listed by line, a sandboxed preview of the student page, publications. */

/** Each problem with its line number and that line of the JSON, linked to the editor (portal.js moves the caret there). */
function problems(errors: LineError[], json: string, t: Translator): SafeHtml {
  if (errors.length === 0) return html``;
  const lines = json.split('\n');
  const excerpt = (line: number | null) =>
    line !== null && lines[line - 1] !== undefined ? html`<code class="excerpt"><span class="line-no">${line}</span> ${lines[line - 1]!.trim().slice(0, 160)}</code>` : '';
  const said = (e: LineError) => {
    const problem = html`${e.field !== 'json' ? html`<code>${e.field}</code> ` : ''}${e.message}`;
    if (e.line === null) return problem;
    return e.column === undefined
      ? richText(t, 'portal.authoring.problems.atLine', { line: e.line, problem })
      : richText(t, 'portal.authoring.problems.atColumn', { line: e.line, column: e.column, problem });
  };
  return html`<div class="error-summary" role="alert" tabindex="-1" id="error-summary">
<h2>${t.t('portal.authoring.problems.heading', { count: errors.length })}</h2>
<ul>${errors.map((e) => html`<li><a href="#${fieldId('json')}" data-line="${e.line ?? ''}">${said(e)}</a>${excerpt(e.line)}</li>`)}</ul>
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
  t: Translator;
}): string {
  const { t, test } = p;
  const action = test ? `/portal/tests/${test.testId}` : '/portal/tests';
  const title = test ? t.t('portal.authoring.editTitle', { title: test.title }) : t.t('portal.authoring.newTest');
  const types = [...LISTED, ...questionTypeNames().filter((type) => !LISTED.includes(type)), 'composite'].join(', ');
  const main = html`<nav class="breadcrumbs" aria-label="${t.t('portal.breadcrumb')}"><ol><li><a href="/portal/tests">${t.t('portal.nav.tests')}</a></li><li aria-current="page">${test ? test.title : t.t('portal.authoring.newTest')}</li></ol></nav>
<h1>${title}</h1>
${test
  ? html`<p class="lede">${richText(t, 'portal.authoring.json.versionLede', { version: test.version, changed: when(test.updatedAt, t), next: test.version + 1 })}</p>`
  : html`<p class="lede">${richText(t, 'portal.authoring.json.newLede')}</p>`}
${problems(p.errors, p.json, t)}
<form method="post" action="${action}" class="panel">
${csrfField(p.principal.sessionCsrf)}
<div class="field${p.errors.length > 0 ? ' has-error' : ''}">
<label for="${fieldId('json')}">${t.t('portal.authoring.json.label')}</label>
<p class="hint" id="json-hint">${t.t('portal.authoring.json.hint', { types })}</p>
<textarea id="${fieldId('json')}" name="json" class="code" rows="30" spellcheck="false" autocapitalize="off" aria-describedby="json-hint"${p.errors.length > 0 ? html` aria-invalid="true"` : ''}>
${p.json}</textarea>
</div>
<button type="submit" class="button primary">${test ? t.t('portal.authoring.json.saveVersion') : t.t('portal.authoring.json.create')}</button>
</form>
${test ? publications(p.principal, test, p.institutions, t) : ''}
${p.agreement ? agreementSection(p.agreement, t) : ''}
${test
  ? html`<h2 id="preview-title">${t.t('portal.authoring.json.previewHeading')}</h2>
<p class="hint">${t.t('portal.authoring.json.previewHint')}</p>
<iframe class="preview-frame" src="/portal/tests/${test.testId}/preview" sandbox="allow-same-origin" title="${t.t('portal.authoring.json.previewFrame', { title: test.title })}"></iframe>`
  : ''}`;
  return portalLayout({ title, principal: p.principal, current: 'tests', main, flash: p.flash ?? null, t });
}

function publications(principal: StaffPrincipal, test: AdminTestView, institutions: Institution[], t: Translator): SafeHtml {
  const published = new Set(test.publishedTo);
  return html`<h2>${t.t('portal.authoring.publications.heading')}</h2>
<p class="hint">${richText(t, 'portal.authoring.publications.hint')}</p>
${dataTable({
  caption: t.t('portal.authoring.publications.caption'),
  stack: true,
  columns: [{ label: t.t('portal.authoring.publications.institution') }, { label: t.t('portal.authoring.publications.published') }, { label: t.t('portal.authoring.publications.action') }],
  rows: institutions.map((i) => [
    html`${i.name}${i.status === 'suspended' ? html` ${statusBadge('suspended', t)}` : ''}`,
    published.has(i.institutionId) ? t.t('portal.authoring.publications.yes') : t.t('portal.authoring.publications.no'),
    postButton({
      action: `/portal/tests/${test.testId}/publications`,
      label: html`${published.has(i.institutionId) ? t.t('portal.authoring.publications.unpublish') : t.t('portal.authoring.publications.publish')}<span class="sr-only"> ${t.t('portal.authoring.publications.forInstitution', { institution: i.name })}</span>`,
      csrf: principal.sessionCsrf,
      fields: { institution: i.institutionId, action: published.has(i.institutionId) ? 'unpublish' : 'publish' },
      variant: published.has(i.institutionId) ? 'secondary' : 'primary',
    }),
  ]),
  empty: t.t('portal.authoring.publications.none'),
})}`;
}

export function testsListPage(p: {
  principal: StaffPrincipal;
  tests: Array<{ testId: string; title: string; version: number; marking: string; resultVisibility: string; publishedTo: string[]; updatedAt: Date }>;
  total: number;
  names: Map<string, string>;
  pager: SafeHtml;
  flash?: Flash | null;
  t: Translator;
}): string {
  const { t } = p;
  const main = html`<div class="page-head"><h1>${t.t('portal.nav.tests')}</h1><p class="page-actions">${newTestForm(p.principal.sessionCsrf, t)} <a href="/portal/tests/import" class="button secondary">${t.t('portal.authoring.tests.import')}</a> <a href="/portal/tests/new" class="button secondary">${t.t('portal.authoring.tests.newFromJson')}</a></p></div>
<p class="lede">${t.t('portal.authoring.tests.allLede', { total: p.total })}</p>
${dataTable({
  caption: t.t('portal.authoring.tests.allCaption'),
  stack: true,
  columns: [
    { label: t.t('portal.authoring.tests.title') },
    { label: t.t('portal.authoring.tests.version'), numeric: true },
    { label: t.t('portal.authoring.tests.marking') },
    { label: t.t('portal.authoring.tests.publishedTo') },
    { label: t.t('portal.authoring.tests.lastChanged') },
  ],
  rows: p.tests.map((row) => [
    html`<a href="/portal/tests/${row.testId}/edit">${row.title}</a><br><span class="hint"><code>${row.testId}</code> · <a href="/portal/tests/${row.testId}">${t.t('portal.authoring.tests.jsonAndPublications')}</a> · ${statisticsLink(row, t)}</span>`,
    row.version,
    t.t('portal.authoring.tests.markingResults', { marking: row.marking, results: row.resultVisibility === 'immediate' ? 'immediate' : 'review' }),
    row.publishedTo.length === 0 ? t.t('portal.authoring.tests.nobody') : row.publishedTo.map((id) => p.names.get(id) ?? id).join(', '),
    whenShort(row.updatedAt, t),
  ]),
  empty: t.t('portal.authoring.tests.none'),
})}
${p.pager}`;
  return portalLayout({ title: t.t('portal.nav.tests'), principal: p.principal, current: 'tests', main, flash: p.flash ?? null, t });
}
