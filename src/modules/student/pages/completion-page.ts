import { englishTranslator, type Translator } from '../../../platform/i18n/catalogue.js';
import type { Score } from '../../lifecycle/score.js';
import type { TestVersion } from '../../catalog/tests-service.js';
import type { SubmittedStatus } from '../../lifecycle/state-machine.js';
import { html, jsonForScript, layout, timeTag, type SafeHtml } from '../../../platform/web/html.js';
import { UPLOAD_REST_CLIENT_MESSAGES, UPLOAD_REST_SCRIPT, type ProctoringPageState } from './proctoring-parts.js';
import { isolated, richMessage } from './rich-message.js';

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
  /** The page's language; English when absent. */
  t?: Translator;
  /** The reviewer's feedback, given only once the result is released (load-student-page.ts). */
  feedback?: { overall: string | null; questions: Array<{ n: number; feedback: string }> } | null;
}): string {
  const t = p.t ?? englishTranslator();
  const submitted = p.submittedAt ? html`<p>${richMessage(t, 'completion.submittedOn', {}, { date: timeTag(p.submittedAt, t) })}</p>` : '';
  let body: SafeHtml;
  if (p.status === 'completed' && p.score) {
    const s = p.score;
    body = html`
<h1>${t.t('completion.result')}</h1>
<p class="lede">${p.test.title}</p>
<dl class="facts result">
  <div><dt>${t.t('completion.score')}</dt><dd>${pointsOf(t, 'completion.scoreValue', s)}</dd></div>
  <div><dt>${t.t('completion.percentage')}</dt><dd>${percentOf(t, s.percent)}</dd></div>
  ${s.passed === null ? '' : html`<div><dt>${t.t('completion.outcome')}</dt><dd class="${s.passed ? 'passed' : 'not-passed'}">${t.t(s.passed ? 'completion.passed' : 'completion.notPassed')}</dd></div>`}
</dl>
${s.sections && s.sections.length > 0 ? sectionTable(t, s.sections) : ''}
${submitted}
${p.feedback ? feedbackSection(t, p.feedback) : ''}`;
  } else if (p.status === 'completed') {
    body = html`<h1>${t.t('completion.complete')}</h1><p class="lede">${p.test.title}</p>${submitted}${p.feedback ? feedbackSection(t, p.feedback) : ''}`;
  } else {
    const marking = p.institutionName ? t.t('completion.markingBody', { institution: p.institutionName }) : t.t('completion.markingBodyNoName');
    body = html`
<h1>${t.t('completion.marking')}</h1>
<p class="lede">${p.test.title}</p>
${submitted}
<p>${marking}</p>`;
  }
  const uploadRest = p.proctoring && p.assignmentId && p.csrfToken ? { assignmentId: p.assignmentId, csrfToken: p.csrfToken, directUploads: p.proctoring.directUploads === true } : null;
  const back = p.institutionName ? t.t('message.returnTo', { institution: p.institutionName }) : t.t('completion.returnNoName');
  const main = html`${body}
${uploadRest ? html`<p id="upload-rest" class="hint" role="status" hidden></p>` : ''}
<p class="actions"><a class="button primary" href="${p.returnUrl}">${back}</a></p>
${uploadRest ? html`<script type="application/json" id="assay-state">${jsonForScript(uploadRest)}</script>` : ''}`;
  return layout({
    t,
    title: t.t(p.status === 'completed' ? 'completion.result' : 'completion.marking'),
    institutionName: p.institutionName,
    main,
    testMode: p.testMode,
    ...(uploadRest ? { moduleScripts: [UPLOAD_REST_SCRIPT], clientMessages: UPLOAD_REST_CLIENT_MESSAGES } : {}),
  });
}

/**
 * The reviewer's feedback: overall, then per question by its number. Plain
 * text, escaped; its line breaks kept (paragraphs at blank lines), in its
 * own direction (`dir="auto"`: a reviewer may write in another script than the page's).
 */
function feedbackSection(t: Translator, f: NonNullable<Parameters<typeof completionPage>[0]['feedback']>): SafeHtml {
  return html`<section class="candidate-feedback" aria-labelledby="feedback-heading">
<h2 id="feedback-heading">${t.t('completion.feedback')}</h2>
${f.overall !== null ? html`<h3>${t.t('completion.feedbackOverall')}</h3>${feedbackText(f.overall)}` : ''}
${f.questions.map((q) => html`<h3>${t.t('test.questionNumber', { n: q.n })}</h3>${feedbackText(q.feedback)}`)}
</section>`;
}

function feedbackText(text: string): SafeHtml {
  return html`${text.split(/\n\s*\n/).map((para) => html`<p class="feedback-text" dir="auto">${para.split('\n').map((line, i) => (i === 0 ? html`${line}` : html`<br>${line}`))}</p>`)}`;
}

/** The score of each section the candidate was given (tests with sections). */
function sectionTable(t: Translator, sections: NonNullable<Score['sections']>): SafeHtml {
  return html`<div class="table-wrap"><table class="section-scores">
<caption>${t.t('completion.sectionsCaption')}</caption>
<thead><tr><th scope="col">${t.t('completion.section')}</th><th scope="col">${t.t('completion.points')}</th><th scope="col">${t.t('completion.percentage')}</th></tr></thead>
<tbody>
${sections.map((s) => html`<tr><th scope="row">${s.title}</th><td>${pointsOf(t, 'completion.sectionPoints', s)}</td><td>${percentOf(t, s.percent)}</td></tr>`)}
</tbody>
</table></div>`;
}

/** Points as the results show them: at most two decimals, in the page's digits; isolated on right-to-left pages. */
function pointsOf(t: Translator, key: 'completion.scoreValue' | 'completion.sectionPoints', s: { points: number; maxPoints: number }): SafeHtml {
  const points = (n: number) => isolated(t, t.number(n, { maximumFractionDigits: 2 }));
  return richMessage(t, key, { count: s.maxPoints }, { points: points(s.points), maxPoints: points(s.maxPoints) });
}

/** A percentage (`75%`, `75 %`, `٧٥٪`): the locale's own sign and spacing, at most two decimals. */
function percentOf(t: Translator, percent: number): string {
  return t.number(percent / 100, { style: 'percent', maximumFractionDigits: 2 });
}
