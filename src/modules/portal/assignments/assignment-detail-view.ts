import type { Translator } from '../../../platform/i18n/catalogue.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { richText } from '../ui/portal-text.js';
import { staffContent } from '../../catalog/content/rendered-content.js';
import { pageTexts } from '../../student/pages/page-content.js';
import { markedTexts, ownText } from '../../catalog/content/content-lang.js';
import type { DeliveryView } from '../../webhooks/event-deliveries.js';
import { statusBadge, statusLabel, testBadge, when } from '../ui/components.js';
import type { Scope } from '../ui/page.js';
import { can } from '../../staff/principal.js';
import { feedbackSummary } from '../marking/feedback-fields.js';
import { answerView, contentBlock, markView, passageNote, scoreFacts, sectionGroups } from './answer-view.js';
import type { MarkingItem } from '../../marking/get-marking-view.js';
import { fileAnswerView } from './answer-file-view.js';
import type { AssignmentRecord } from './load-assignment-record.js';
import { ltiScoresPanel } from './lti-scores-view.js';
import { questionTypeLabel } from '../../catalog/question-types/registry.js';

/** One assignment: facts, timeline (status changes, events, every delivery attempt), answers with marks. */
export function assignmentDetail(scope: Scope, r: AssignmentRecord, controls: SafeHtml | string = ''): SafeHtml {
  const { t } = scope;
  const a = r.assignment;
  // The metadata as the partner sent it (its key order), laid out for reading.
  const sent = JSON.parse(a.metadataJson) as Record<string, unknown>;
  const metadata = Object.keys(sent).length > 0 ? JSON.stringify(sent, null, 2) : null;
  return html`<nav class="breadcrumbs" aria-label="${t.t('portal.breadcrumb')}"><ol><li><a href="${scope.link('/portal/assignments')}">${t.t('portal.nav.assignments')}</a></li><li aria-current="page">${a.externalUserId}</li></ol></nav>
<div class="page-head"><h1>${richText(t, 'portal.assignment.heading', { test: html`${ownText(testTexts(r), r.test.title)}`, student: a.externalUserId })}</h1><p>${r.livemode ? '' : html`${testBadge(t)} `}${statusBadge(a.status, t)}</p></div>
${r.livemode ? '' : html`<p class="notice">${richText(t, 'portal.assignment.testMode')}</p>`}
${a.status === 'marking' ? html`<p class="notice">${richText(t, 'portal.assignment.waitsForReviewer', { link: html`<a href="${scope.link(`/portal/marking/${a.assignmentId}`)}">${t.t('portal.assignment.markIt')}</a>` })}</p>` : ''}
<div class="side-by-side">
<section class="panel" aria-labelledby="facts-title">
<h2 id="facts-title">${t.t('portal.assignment.details')}</h2>
<dl class="facts">
<dt>${t.t('portal.assignment.assignmentId')}</dt><dd><code>${a.assignmentId}</code></dd>
<dt>${t.t('portal.assignments.externalUserId')}</dt><dd>${a.externalUserId}</dd>
<dt>${t.t('portal.assignments.test')}</dt><dd>${ownText(testTexts(r), r.test.title)} ${
  r.test.version > 0
    ? html`<span class="hint">${richText(t, 'portal.assignment.version', { version: String(r.test.version), testId: html`<code>${a.testId}</code>` })}</span> · <a href="${scope.link(`/portal/tests/${a.testId}/statistics`, {
        version: String(r.test.version),
        mode: r.livemode ? 'live' : 'test',
      })}">${t.t('portal.assignment.statistics')}<span class="sr-only"> ${t.t('portal.assignment.statisticsOf', { test: r.test.title })}</span></a>`
    : html`<span class="hint">${richText(t, 'portal.assignment.tryItRun', { testId: html`<code>${a.testId}</code>` })}</span>`
}</dd>
<dt>${t.t('portal.assignments.status')}</dt><dd>${statusLabel(a.status, t)}</dd>
${scoreFacts(a.result.score, t)}
${'reportUrl' in a.result && a.result.reportUrl
  ? html`<dt>${t.t('portal.assignment.report')}</dt><dd><a href="${a.result.reportUrl}" target="_blank" rel="noopener">${t.t('portal.assignment.printableReport')}<span class="sr-only"> ${t.t('portal.assignment.opensInNewTab')}</span></a> · <a href="${a.result.reportUrl}?format=pdf">${t.t('portal.assignment.pdf')}</a> <span class="hint">${t.t('portal.assignment.linksValid')}</span></dd>`
  : ''}
<dt>${t.t('portal.assignment.due')}</dt><dd>${when(a.dueAt, t)}</dd>
${metadata ? html`<dt>${t.t('portal.assignment.metadata')}</dt><dd><pre class="answer">${metadata}</pre></dd>` : ''}
</dl>
</section>
<section class="panel" aria-labelledby="timeline-title">
<h2 id="timeline-title">${t.t('portal.assignment.timeline')}</h2>
${timeline(t, r)}
</section>
</div>
${ltiScoresPanel(r.ltiScores, t)}
${controls}
${proctoringPanel(scope, r)}
${feedbackSummary(t, r.marking.feedback, (questionId) => r.marking.items.findIndex((i) => i.questionId === questionId) + 1)}
<h2 id="answers-title">${t.t('portal.assignment.answers')}</h2>
${r.marking.items.length === 0 ? html`<p class="empty">${t.t('portal.assignment.noQuestions')}</p>` : ''}
${r.assignment.startedAt === null ? html`<p class="empty">${t.t('portal.assignment.notBegun')}</p>` : answers(scope, r)}`;
}

/** The pinned version's texts for staff: rendered once per version, images from /portal/content-assets; marked with the test's language where it is not the page's. */
const testTexts = (r: AssignmentRecord) => markedTexts(pageTexts(r.test, staffContent), r.test);

/** The answers in the order the student saw them; under each section's title when the test has sections. */
function answers(scope: Scope, r: AssignmentRecord): SafeHtml {
  const { t } = scope;
  const groups = sectionGroups(r.marking);
  const level = groups.length === 1 && groups[0]!.title === null ? 3 : 4;
  const texts = testTexts(r);
  const question = ({ item, index }: { item: MarkingItem; index: number }) => html`<section class="question" aria-labelledby="q-${index + 1}">
<h${level} id="q-${index + 1}">${t.t('portal.marking.item.question', { n: index + 1 })} <span class="hint">${t.t('portal.assignment.questionFacts', {
  type: questionTypeLabel(item.type),
  max: item.maxPoints,
  points: String(item.maxPoints),
})}</span></h${level}>
${passageNote(texts, r.questions.get(item.questionId), r.test.passages ?? [], t)}
${contentBlock(texts, 'prompt', `${item.questionId}.prompt`, item.prompt)}
${answerView(r.questions.get(item.questionId), item.answer, r.files.has(item.questionId) ? fileAnswerView(scope, r.files.get(item.questionId), { preview: false, download: can(scope.p, 'mark') }) : undefined, texts, t)}
${markView({ ...item, prompt: texts.text(item.prompt) }, t)}
</section>`;
  if (level === 3) return html`${groups[0]!.items.map(question)}`;
  return html`${groups.map(
    (g, i) => html`<section aria-labelledby="section-${i + 1}">
<h3 class="section-head" id="section-${i + 1}">${ownText(texts, g.title)}</h3>
${g.items.map(question)}
</section>`,
  )}`;
}

/** A proctored attempt links to its review page (for roles that review proctoring), with the flag counts. */
function proctoringPanel(scope: Scope, r: AssignmentRecord): SafeHtml | string {
  const { t } = scope;
  const p = r.assignment.proctoring;
  if (!p) return '';
  const link = html`<a href="${scope.link(`/portal/assignments/${r.assignment.assignmentId}/proctoring`)}">${t.t('portal.assignment.proctoring.open')}<span class="sr-only"> ${t.t(
    'portal.assignment.proctoring.openWhose',
    { student: r.assignment.externalUserId },
  )}</span></a>`;
  return html`<section class="panel" aria-labelledby="proctoring-title">
<h2 id="proctoring-title">${t.t('portal.proctoring.record.crumb')}</h2>
<p>${t.t('portal.assignment.proctoring.flags', {
    critical: String(p.flags.critical),
    warning: String(p.flags.warning),
    info: p.flags.info,
    infoCount: String(p.flags.info),
    status: p.reviewStatus,
  })}</p>
${can(scope.p, 'review_proctoring')
  ? html`<p>${richText(t, p.reviewStatus === 'pending' ? 'portal.assignment.proctoring.openWithReview' : 'portal.assignment.proctoring.openRecord', { link })}</p>`
  : html`<p class="hint">${t.t('portal.assignment.proctoring.reviewersOnly')}</p>`}
</section>`;
}

interface Entry {
  at: Date;
  order: number;
  body: SafeHtml;
}

function timeline(t: Translator, r: AssignmentRecord): SafeHtml {
  const a = r.assignment;
  const entries: Entry[] = [];
  const status = (at: Date | null, text: string) => {
    if (at) entries.push({ at, order: 0, body: html`<p class="what">${text}</p><p class="meta">${when(at, t)}</p>` });
  };
  status(a.createdAt, t.t('portal.assignment.timeline.assigned'));
  status(a.startedAt, t.t('portal.assignment.timeline.started'));
  status(a.submittedAt, t.t('portal.assignment.timeline.submitted'));
  if (a.submittedAt && (a.status === 'marking' || (a.status === 'completed' && r.marking.resultVisibility === 'after_review'))) {
    entries.push({ at: a.submittedAt, order: 0.5, body: html`<p class="what">${t.t('portal.assignment.timeline.waitingForMarking')}</p>` });
  }
  status(a.completedAt, t.t('portal.assignment.timeline.completed'));
  for (const e of r.events) {
    entries.push({
      at: new Date(e.timestamp),
      order: 1,
      body: html`<p class="what">${richText(t, 'portal.assignment.timeline.event', { type: html`<code>${e.type}</code>` })}</p><p class="meta">${when(new Date(e.timestamp), t)} · <code>${e.id}</code></p>${deliveries(t, e.deliveries)}`,
    });
  }
  entries.sort((x, y) => x.at.getTime() - y.at.getTime() || x.order - y.order);
  return html`<ol class="timeline">${entries.map((e) => html`<li>${e.body}</li>`)}</ol>`;
}

function deliveries(t: Translator, list: DeliveryView[]): SafeHtml {
  if (list.length === 0) return html`<p class="meta">${t.t('portal.assignment.delivery.none')}</p>`;
  return html`${list.map(
    (d) => html`<p class="meta">${richText(t, d.nextAttemptAt ? 'portal.assignment.delivery.toRetrying' : 'portal.assignment.delivery.to', {
      url: html`<code>${d.url}</code>`,
      status: statusBadge(d.status, t),
      next: d.nextAttemptAt ? when(d.nextAttemptAt, t) : '',
    })}</p>
<ol class="attempts">${d.attempts.map(
      (at) => html`<li>${richText(t, 'portal.assignment.delivery.attempt', {
        outcome: at.statusCode !== null ? t.t('portal.assignment.delivery.http', { code: String(at.statusCode) }) : (at.errorClass ?? t.t('portal.assignment.delivery.noResponse')),
        ms: String(at.durationMs),
        when: when(at.attemptedAt, t),
      })}${at.responseExcerpt ? html`<code class="excerpt">${at.responseExcerpt.slice(0, 300)}</code>` : ''}</li>`,
    )}</ol>`,
  )}`;
}
