import { plannedTotals } from '../../catalog/delivery.js';
import type { TestVersion } from '../../catalog/tests-service.js';
import { formatPoints, html, jsonForScript, layout, plural, timeTag } from '../../../platform/web/html.js';
import { CAMERA_CHECK_SCRIPT, cameraCheckStep, type ProctoringPageState } from './proctoring-parts.js';

export function introPage(p: {
  assignmentId: string;
  institutionName: string;
  test: TestVersion;
  csrfToken: string;
  dueAt: Date | null;
  /** Present for `record` and `live_ai` tests: the check step and its script. */
  proctoring?: ProctoringPageState | null;
  testMode?: boolean;
}): string {
  const { test } = p;
  const planned = plannedTotals(test);
  const proctoring = test.proctoring === 'none' ? null : (p.proctoring ?? null);
  // A proctored test whose page state is missing cannot check the camera, so Begin stays off rather than skipping the check.
  const checked = test.proctoring !== 'none';
  const state = proctoring ? { assignmentId: p.assignmentId, csrfToken: p.csrfToken, proctoring } : null;
  const main = html`
<h1>${test.title}</h1>
${test.description ? html`<p class="lede">${test.description}</p>` : ''}
<dl class="facts">
  <div><dt>Time allowed</dt><dd>${plural(test.durationMinutes, 'minute')}</dd></div>
  ${test.sections ? html`<div><dt>Sections</dt><dd>${test.sections.length}</dd></div>` : ''}
  <div><dt>Questions</dt><dd>${planned.questions}</dd></div>
  <div><dt>Points</dt><dd>${formatPoints(planned.points)}</dd></div>
  ${p.dueAt ? html`<div><dt>Begin by</dt><dd>${timeTag(p.dueAt)}</dd></div>` : ''}
</dl>
${proctoring ? cameraCheckStep({ proctoring, institutionName: p.institutionName }) : ''}
${checked && !proctoring ? html`<p class="notice" id="camera-status">This test is supervised, but its camera check could not be set up. Reload this page; if that does not help, contact ${p.institutionName || 'your institution'}.</p>` : ''}
<p>When you begin, the timer starts and keeps running even if you close this page. Your answers are saved as you go,
and the test is submitted for you when the time is up.</p>
<form method="post" action="/a/${p.assignmentId}/begin" class="actions" id="begin-form"${checked ? html` data-camera-check="required"` : ''}>
  <input type="hidden" name="csrf" value="${p.csrfToken}">
  <button type="submit" class="button primary" id="begin-button"${checked ? html` disabled aria-describedby="camera-status"` : ''}>Begin test</button>
  ${proctoring ? html`<p class="hint" id="begin-hint">Begin test becomes available once the camera check above has passed.</p>` : ''}
</form>
${state ? html`<script type="application/json" id="assay-state">${jsonForScript(state)}</script>` : ''}`;
  return layout({ title: test.title, institutionName: p.institutionName, main, testMode: p.testMode, ...(proctoring ? { moduleScripts: [CAMERA_CHECK_SCRIPT] } : {}) });
}
