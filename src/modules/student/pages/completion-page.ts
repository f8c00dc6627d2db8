import type { Score } from '../../lifecycle/score.js';
import type { TestVersion } from '../../catalog/tests-service.js';
import type { SubmittedStatus } from '../../lifecycle/state-machine.js';
import { formatPoints, html, jsonForScript, layout, timeTag, type SafeHtml } from '../../../platform/web/html.js';
import { UPLOAD_REST_SCRIPT, type ProctoringPageState } from './proctoring-parts.js';

/**
 * After submission. A completed assignment shows its result (an `immediate`
 * test at once; an `after_review` one once a reviewer has finished);
 * otherwise "Marking in progress". Both end with the Return link.
 */
export function completionPage(p: {
  institutionName: string;
  test: TestVersion;
  status: SubmittedStatus;
  submittedAt: Date | null;
  score: Score | null;
  returnUrl: string;
  /** Proctored tests: what the browser still holds of the recording is sent from this page. */
  assignmentId?: string;
  csrfToken?: string;
  proctoring?: ProctoringPageState | null;
  testMode?: boolean;
}): string {
  const submitted = p.submittedAt ? html`<p>Your answers were submitted on ${timeTag(p.submittedAt)}.</p>` : '';
  let body: SafeHtml;
  if (p.status === 'completed' && p.score) {
    const s = p.score;
    body = html`
<h1>Your result</h1>
<p class="lede">${p.test.title}</p>
<dl class="facts result">
  <div><dt>Score</dt><dd>${formatPoints(s.points)} of ${formatPoints(s.maxPoints)} points</dd></div>
  <div><dt>Percentage</dt><dd>${formatPoints(s.percent)}%</dd></div>
  ${s.passed === null ? '' : html`<div><dt>Outcome</dt><dd class="${s.passed ? 'passed' : 'not-passed'}">${s.passed ? 'Passed' : 'Not passed'}</dd></div>`}
</dl>
${s.sections && s.sections.length > 0 ? sectionTable(s.sections) : ''}
${submitted}`;
  } else if (p.status === 'completed') {
    body = html`<h1>Test complete</h1><p class="lede">${p.test.title}</p>${submitted}`;
  } else {
    body = html`
<h1>Marking in progress</h1>
<p class="lede">${p.test.title}</p>
${submitted}
<p>Your answers are being marked. Your result will be available from ${p.institutionName} once marking is finished.</p>`;
  }
  const uploadRest = p.proctoring && p.assignmentId && p.csrfToken ? { assignmentId: p.assignmentId, csrfToken: p.csrfToken, directUploads: p.proctoring.directUploads === true } : null;
  const main = html`${body}
${uploadRest ? html`<p id="upload-rest" class="hint" role="status" hidden></p>` : ''}
<p class="actions"><a class="button primary" href="${p.returnUrl}">Return to ${p.institutionName}</a></p>
${uploadRest ? html`<script type="application/json" id="assay-state">${jsonForScript(uploadRest)}</script>` : ''}`;
  return layout({
    title: p.status === 'completed' ? 'Your result' : 'Marking in progress',
    institutionName: p.institutionName,
    main,
    testMode: p.testMode,
    ...(uploadRest ? { moduleScripts: [UPLOAD_REST_SCRIPT] } : {}),
  });
}

/** The score of each section the candidate was given (tests with sections). */
function sectionTable(sections: NonNullable<Score['sections']>): SafeHtml {
  return html`<div class="table-wrap"><table class="section-scores">
<caption>Your score in each section</caption>
<thead><tr><th scope="col">Section</th><th scope="col">Points</th><th scope="col">Percentage</th></tr></thead>
<tbody>
${sections.map((s) => html`<tr><th scope="row">${s.title}</th><td>${formatPoints(s.points)} of ${formatPoints(s.maxPoints)}</td><td>${formatPoints(s.percent)}%</td></tr>`)}
</tbody>
</table></div>`;
}
