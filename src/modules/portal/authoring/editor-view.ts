import { html, jsonForScript } from '../../../platform/web/html.js';
import type { StaffPrincipal } from '../../staff/principal.js';
import type { DraftView, VersionListItem } from '../../catalog/drafts.js';
import { whenShort, type Flash } from '../ui/components.js';
import { portalLayout } from '../ui/layout.js';

/**
 * The form editor's page: the frame test-editor.js fills (the form, the
 * JSON view, problems next to their fields, the save status), the preview
 * beside it and the versions below. The draft travels in a JSON block; the
 * page works on the authoring routes only (docs/authoring.md).
 */
export function testEditorPage(p: { principal: StaffPrincipal; draft: DraftView; versions: VersionListItem[]; flash?: Flash | null }): string {
  const d = p.draft;
  const title = typeof d.content.title === 'string' && d.content.title.trim() !== '' ? d.content.title : 'Untitled test';
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
  };
  const main = html`<nav class="breadcrumbs" aria-label="Breadcrumb"><ol><li><a href="/portal/tests">Tests</a></li><li aria-current="page" id="crumb-title">${title}</li></ol></nav>
<h1>Edit test</h1>
<p class="lede">Changes are saved as a draft as you type. Partners assign a published version only: <strong>Publish version</strong> makes the draft version ${d.nextVersion}. Assignments already made keep the version they started with.</p>
<div class="editor-bar" role="region" aria-label="Draft">
  <p class="editor-status" id="editor-status" role="status" aria-live="polite">${d.revision === 0 ? 'No draft saved yet.' : `Draft saved (revision ${d.revision}).`}</p>
  <div class="editor-actions">
    <button type="button" class="button secondary" id="save-draft">Save draft</button>
    <button type="button" class="button primary" id="publish-version" aria-describedby="publish-hint">Publish version</button>
    <button type="button" class="button secondary" id="json-toggle" aria-pressed="false">JSON view</button>
    <form method="post" action="/portal/tests/${d.testId}/try" target="_blank" class="inline-form"><input type="hidden" name="csrf" value="${p.principal.sessionCsrf}"><button type="submit" class="button secondary">Try it</button></form>
  </div>
  <p class="hint" id="publish-hint">Publishing checks the whole test first; problems are shown next to their fields.</p>
</div>
<div id="editor-alert"></div>
<div id="editor-summary"></div>
<div class="editor-layout">
  <div class="editor-main">
    <noscript><p class="notice">The test editor needs JavaScript. Without it, use the JSON routes described in the authoring guide.</p></noscript>
    <form id="test-editor" class="test-editor" novalidate aria-label="Test"></form>
    <div id="json-view" class="json-view" hidden>
      <label for="json-text">Test JSON</label>
      <p class="hint" id="json-text-hint">The test in the operator API's format (docs/test-format.md). It is checked and saved like the form.</p>
      <textarea id="json-text" class="code" rows="30" spellcheck="false" autocapitalize="off" aria-describedby="json-text-hint json-text-error"></textarea>
      <p class="field-error" id="json-text-error" hidden></p>
    </div>
  </div>
  <aside class="editor-preview" aria-labelledby="preview-heading">
    <div class="preview-head"><h2 id="preview-heading">Preview</h2><button type="button" class="button secondary small" id="preview-width" aria-pressed="false">Phone width</button></div>
    <p class="hint">The saved draft as a student sees it, refreshed after each save.</p>
    <div class="preview-box" id="preview-box"><iframe id="preview-frame" class="preview-frame" title="Preview" sandbox="allow-same-origin" src="/portal/tests/${d.testId}/draft/preview?revision=${d.revision}"></iframe></div>
  </aside>
</div>
<section class="panel versions" aria-labelledby="versions-heading">
  <h2 id="versions-heading">Versions</h2>
  ${p.versions.length === 0
    ? html`<p id="versions-empty">No version published yet.</p>`
    : html`<ul class="version-list" id="version-list">${p.versions.map(
        (v) => html`<li><details data-version="${v.version}"><summary>Version ${v.version}: ${v.title} (${v.questionCount} ${v.questionCount === 1 ? 'question' : 'questions'}), ${whenShort(v.createdAt)}</summary><div class="version-changes" aria-live="polite">Open to see what changed.</div></details></li>`,
      )}</ul>`}
</section>
<section class="panel danger-zone" aria-labelledby="delete-heading">
  <h2 id="delete-heading">Delete this test</h2>
  <p>Deleting removes the test from every list and stops new assignments; assignments already made keep working to the end.</p>
  <button type="button" class="button danger" id="delete-test">Delete test</button>
</section>
<script type="application/json" id="editor-data">${jsonForScript(data)}</script>
<script src="/portal/assets/editor-kit.js" defer></script>
<script src="/portal/assets/editor-parameters.js" defer></script>
<script src="/portal/assets/question-type-editors.js" defer></script>
<script src="/portal/assets/editor-questions.js" defer></script>
<script src="/portal/assets/editor-passages.js" defer></script>
<script src="/portal/assets/editor-form.js" defer></script>
<script src="/portal/assets/test-editor.js" defer></script>`;
  return portalLayout({ title: `Edit ${title}`, principal: p.principal, current: 'tests', main, flash: p.flash ?? null });
}
