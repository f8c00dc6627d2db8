import type { Translator } from '../../../platform/i18n/catalogue.js';
import { html, jsonForScript } from '../../../platform/web/html.js';
import type { StaffPrincipal } from '../../staff/principal.js';
import type { DraftView, VersionListItem } from '../../catalog/drafts.js';
import { statusLabel, whenShort, type Flash } from '../ui/components.js';
import type { TrialRun } from '../../assignments/trial-runs.js';
import { portalLayout } from '../ui/layout.js';
import { richText } from '../ui/portal-text.js';
import { editorPageMessages } from './editor-messages.js';
import { TRANSLATION_MESSAGES, translatablePaths, translationLocales } from './editor-translations.js';

/** Where the author finds their last Try it run again: trials never enter the marking queue or the listings. */
function lastTrialLine(run: TrialRun, t: Translator) {
  return html`<p class="hint" id="last-trial">${richText(t, 'portal.authoring.editor.lastTrial', {
    started: whenShort(run.createdAt, t),
    status: statusLabel(run.status, t),
    link: html`<a href="/portal/assignments/${run.assignmentId}">${t.t('portal.authoring.editor.lastTrialLink')}</a>`,
  })}</p>`;
}

/**
 * The form editor's page: the frame test-editor.js fills (the form, the
 * JSON view, problems next to their fields, the save status), the preview
 * beside it and the versions below. The draft travels in a JSON block; the
 * page works on the authoring routes only (docs/authoring.md).
 */
export function testEditorPage(p: { principal: StaffPrincipal; draft: DraftView; versions: VersionListItem[]; lastTrial?: TrialRun | null; flash?: Flash | null; t: Translator }): string {
  const { t } = p;
  const d = p.draft;
  const title = typeof d.content.title === 'string' && d.content.title.trim() !== '' ? d.content.title : t.t('portal.authoring.untitled');
  const data = {
    testId: d.testId,
    revision: d.revision,
    content: d.content,
    problems: d.problems,
    nextVersion: d.nextVersion,
    updatedBy: d.updatedBy,
    updatedAt: d.updatedAt?.toISOString() ?? null,
    csrf: p.principal.sessionCsrf,
    me: p.principal.email,
    // The Translations panel's (editor-translations.js): which texts translate, how far each locale is, in which languages.
    translatable: translatablePaths(d.content),
    translationStatus: d.translationStatus ?? {},
    locales: translationLocales(t.lang),
  };
  const main = html`<nav class="breadcrumbs" aria-label="${t.t('portal.breadcrumb')}"><ol><li><a href="/portal/tests">${t.t('portal.nav.tests')}</a></li><li aria-current="page" id="crumb-title">${title}</li></ol></nav>
<h1>${t.t('portal.authoring.editor.heading')}</h1>
<p class="lede">${richText(t, 'portal.authoring.editor.lede', { publish: html`<strong>${t.t('portal.authoring.editor.publish')}</strong>`, version: d.nextVersion })}</p>
<div class="editor-bar" role="region" aria-label="${t.t('portal.authoring.editor.draftRegion')}">
  <p class="editor-status" id="editor-status" role="status" aria-live="polite">${d.revision === 0 ? t.t('portal.authoring.editor.noDraftYet') : t.t('portal.authoring.editor.draftSaved', { revision: d.revision })}</p>
  <div class="editor-actions">
    <button type="button" class="button secondary" id="save-draft">${t.t('portal.authoring.editor.saveDraft')}</button>
    <button type="button" class="button primary" id="publish-version" aria-describedby="publish-hint">${t.t('portal.authoring.editor.publish')}</button>
    <button type="button" class="button secondary" id="json-toggle" aria-pressed="false">${t.t('portal.authoring.editor.jsonView')}</button>
    <form method="post" action="/portal/tests/${d.testId}/try" target="_blank" class="inline-form"><input type="hidden" name="csrf" value="${p.principal.sessionCsrf}"><button type="submit" class="button secondary">${t.t('portal.authoring.editor.tryIt')}</button></form>
  </div>
  <p class="hint" id="publish-hint">${t.t('portal.authoring.editor.publishHint')}</p>
  ${p.lastTrial ? lastTrialLine(p.lastTrial, t) : ''}
</div>
<div id="editor-alert"></div>
<div id="editor-summary"></div>
<div class="editor-layout">
  <div class="editor-main">
    <noscript><p class="notice">${t.t('portal.authoring.editor.noScript')}</p></noscript>
    <form id="test-editor" class="test-editor" novalidate aria-label="${t.t('portal.authoring.editor.formLabel')}"></form>
    <div id="json-view" class="json-view" hidden>
      <label for="json-text">${t.t('portal.authoring.json.label')}</label>
      <p class="hint" id="json-text-hint">${richText(t, 'portal.authoring.editor.jsonHint')}</p>
      <textarea id="json-text" class="code" rows="30" spellcheck="false" autocapitalize="off" aria-describedby="json-text-hint json-text-error"></textarea>
      <p class="field-error" id="json-text-error" hidden></p>
    </div>
  </div>
  <aside class="editor-preview" aria-labelledby="preview-heading">
    <div class="preview-head"><h2 id="preview-heading">${t.t('portal.authoring.editor.preview')}</h2><button type="button" class="button secondary small" id="preview-width" aria-pressed="false">${t.t('portal.authoring.editor.phoneWidth')}</button></div>
    <p class="hint">${t.t('portal.authoring.editor.previewHint')}</p>
    <div class="preview-box" id="preview-box"><iframe id="preview-frame" class="preview-frame" title="${t.t('portal.authoring.editor.preview')}" sandbox="allow-same-origin" src="/portal/tests/${d.testId}/draft/preview?revision=${d.revision}"></iframe></div>
  </aside>
</div>
<section class="panel versions" aria-labelledby="versions-heading">
  <h2 id="versions-heading">${t.t('portal.authoring.editor.versions')}</h2>
  ${p.versions.length === 0
    ? html`<p id="versions-empty">${t.t('portal.authoring.editor.noVersions')}</p>`
    : html`<ul class="version-list" id="version-list">${p.versions.map(
        (v) => html`<li><details data-version="${v.version}"><summary>${richText(t, 'portal.authoring.editor.version', { version: v.version, title: v.title, questions: v.questionCount, published: whenShort(v.createdAt, t) })}</summary><div class="version-changes" aria-live="polite">${t.t('portal.authoring.editor.openChanges')}</div></details></li>`,
      )}</ul>`}
</section>
<section class="panel export" aria-labelledby="export-heading">
  <h2 id="export-heading">${t.t('portal.export.heading')}</h2>
  <p class="hint" id="export-hint">${t.t('portal.export.editorHint')}</p>
  <p class="actions"><a class="button secondary" href="/portal/tests/${d.testId}/export?format=qti3&amp;from=draft" data-export="qti3" aria-describedby="export-hint">${t.t('portal.export.qtiButton')}</a> <a class="button secondary" href="/portal/tests/${d.testId}/export?format=csv&amp;from=draft" data-export="csv" aria-describedby="export-hint">${t.t('portal.export.csvButton')}</a></p>
</section>
<section class="panel danger-zone" aria-labelledby="delete-heading">
  <h2 id="delete-heading">${t.t('portal.authoring.editor.deleteHeading')}</h2>
  <p>${t.t('portal.authoring.editor.deleteText')}</p>
  <button type="button" class="button danger" id="delete-test">${t.t('portal.authoring.editor.delete')}</button>
</section>
<script type="application/json" id="editor-data">${jsonForScript(data)}</script>
<script src="/portal/assets/editor-kit.js" defer></script>
<script src="/portal/assets/editor-problems.js" defer></script>
<script src="/portal/assets/editor-parameters.js" defer></script>
<script src="/portal/assets/question-type-editors.js" defer></script>
<script src="/portal/assets/editor-questions.js" defer></script>
<script src="/portal/assets/editor-passages.js" defer></script>
<script src="/portal/assets/editor-form.js" defer></script>
<script src="/portal/assets/editor-translations.js" defer></script>
<script src="/portal/assets/editor-tab.js" defer></script>
<script src="/portal/assets/test-editor.js" defer></script>`;
  return portalLayout({ title: t.t('portal.authoring.editTitle', { title }), principal: p.principal, current: 'tests', main, flash: p.flash ?? null, t, clientMessages: [...editorPageMessages(), ...TRANSLATION_MESSAGES] });
}
