import { html, type SafeHtml } from '../../../platform/web/html.js';
import { staffContent } from '../../catalog/content/rendered-content.js';
import { pageTexts } from '../../student/pages/page-content.js';
import type { DeliveryView } from '../../webhooks/event-deliveries.js';
import { statusBadge, statusLabel, testBadge, when } from '../ui/components.js';
import type { Scope } from '../ui/page.js';
import { can } from '../../staff/principal.js';
import { answerView, contentBlock, markView, passageNote, scoreFacts, sectionGroups } from './answer-view.js';
import type { MarkingItem } from '../../marking/get-marking-view.js';
import { fileAnswerView } from './answer-file-view.js';
import type { AssignmentRecord } from './load-assignment-record.js';
import { ltiScoresPanel } from './lti-scores-view.js';
import { questionTypeLabel } from '../../catalog/question-types/registry.js';

/** One assignment: facts, timeline (status changes, events, every delivery attempt), answers with marks. */
export function assignmentDetail(scope: Scope, r: AssignmentRecord, controls: SafeHtml | string = ''): SafeHtml {
  const a = r.assignment;
  const metadata = Object.keys(a.metadata).length > 0 ? JSON.stringify(a.metadata, null, 2) : null;
  return html`<nav class="breadcrumbs" aria-label="Breadcrumb"><ol><li><a href="${scope.link('/portal/assignments')}">Assignments</a></li><li aria-current="page">${a.externalUserId}</li></ol></nav>
<div class="page-head"><h1>${r.test.title} for ${a.externalUserId}</h1><p>${r.livemode ? '' : html`${testBadge()} `}${statusBadge(a.status)}</p></div>
${r.livemode ? '' : html`<p class="notice">A test-mode assignment, made with a test API key: it is not counted in the Overview's figures.</p>`}
${a.status === 'marking' ? html`<p class="notice">This attempt waits for a reviewer. <a href="${scope.link(`/portal/marking/${a.assignmentId}`)}">Mark it</a>.</p>` : ''}
<div class="side-by-side">
<section class="panel" aria-labelledby="facts-title">
<h2 id="facts-title">Details</h2>
<dl class="facts">
<dt>Assignment id</dt><dd><code>${a.assignmentId}</code></dd>
<dt>External user id</dt><dd>${a.externalUserId}</dd>
<dt>Test</dt><dd>${r.test.title} ${
  r.test.version > 0
    ? html`<span class="hint">(version ${r.test.version}, <code>${a.testId}</code>)</span> · <a href="${scope.link(`/portal/tests/${a.testId}/statistics`, { version: String(r.test.version), mode: r.livemode ? 'live' : 'test' })}">Statistics<span class="sr-only"> of ${r.test.title}</span></a>`
    : html`<span class="hint">(a Try it run of a draft, <code>${a.testId}</code>)</span>`
}</dd>
<dt>Status</dt><dd>${statusLabel(a.status)}</dd>
${scoreFacts(a.result.score)}
${'reportUrl' in a.result && a.result.reportUrl ? html`<dt>Report</dt><dd><a href="${a.result.reportUrl}" target="_blank" rel="noopener">Printable report<span class="sr-only"> (opens in a new tab)</span></a> · <a href="${a.result.reportUrl}?format=pdf">PDF</a> <span class="hint">(links valid 15 minutes)</span></dd>` : ''}
<dt>Due</dt><dd>${when(a.dueAt)}</dd>
${metadata ? html`<dt>Metadata</dt><dd><pre class="answer">${metadata}</pre></dd>` : ''}
</dl>
</section>
<section class="panel" aria-labelledby="timeline-title">
<h2 id="timeline-title">Timeline</h2>
${timeline(r)}
</section>
</div>
${ltiScoresPanel(r.ltiScores)}
${controls}
${proctoringPanel(scope, r)}
<h2 id="answers-title">Answers</h2>
${r.marking.items.length === 0 ? html`<p class="empty">No questions.</p>` : ''}
${r.assignment.startedAt === null ? html`<p class="empty">The student has not begun, so there are no answers yet.</p>` : answers(scope, r)}`;
}

/** The answers in the order the student saw them; under each section's title when the test has sections. */
function answers(scope: Scope, r: AssignmentRecord): SafeHtml {
  const groups = sectionGroups(r.marking);
  const level = groups.length === 1 && groups[0]!.title === null ? 3 : 4;
  // The pinned version's texts for staff: rendered once per version, images from /portal/content-assets.
  const texts = pageTexts(r.test, staffContent);
  const question = ({ item, index }: { item: MarkingItem; index: number }) => html`<section class="question" aria-labelledby="q-${index + 1}">
<h${level} id="q-${index + 1}">Question ${index + 1} <span class="hint">(${questionTypeLabel(item.type)}, ${item.maxPoints} point${item.maxPoints === 1 ? '' : 's'})</span></h${level}>
${passageNote(texts, r.questions.get(item.questionId), r.test.passages ?? [])}
${contentBlock(texts, 'prompt', `${item.questionId}.prompt`, item.prompt)}
${answerView(r.questions.get(item.questionId), item.answer, r.files.has(item.questionId) ? fileAnswerView(scope, r.files.get(item.questionId), { preview: false, download: can(scope.p, 'mark') }) : undefined, texts)}
${markView({ ...item, prompt: texts.text(item.prompt) })}
</section>`;
  if (level === 3) return html`${groups[0]!.items.map(question)}`;
  return html`${groups.map(
    (g, i) => html`<section aria-labelledby="section-${i + 1}">
<h3 class="section-head" id="section-${i + 1}">${g.title}</h3>
${g.items.map(question)}
</section>`,
  )}`;
}

/** A proctored attempt links to its review page (for roles that review proctoring), with the flag counts. */
function proctoringPanel(scope: Scope, r: AssignmentRecord): SafeHtml | string {
  const p = r.assignment.proctoring;
  if (!p) return '';
  const status = p.reviewStatus === 'pending' ? 'review pending' : p.reviewStatus === 'reviewed' ? 'reviewed' : 'no review needed';
  return html`<section class="panel" aria-labelledby="proctoring-title">
<h2 id="proctoring-title">Proctoring</h2>
<p>${p.flags.critical} critical, ${p.flags.warning} warning and ${p.flags.info} info flag${p.flags.info === 1 ? '' : 's'}; ${status}.</p>
${can(scope.p, 'review_proctoring') ? html`<p><a href="${scope.link(`/portal/assignments/${r.assignment.assignmentId}/proctoring`)}">Open the proctoring record<span class="sr-only"> of ${r.assignment.externalUserId}</span></a>: flags, recording and evidence${p.reviewStatus === 'pending' ? ', and the review' : ''}.</p>` : html`<p class="hint">Reviewers and admins can open the recording and the evidence.</p>`}
</section>`;
}

interface Entry {
  at: Date;
  order: number;
  body: SafeHtml;
}

function timeline(r: AssignmentRecord): SafeHtml {
  const a = r.assignment;
  const entries: Entry[] = [];
  const status = (at: Date | null, text: string) => {
    if (at) entries.push({ at, order: 0, body: html`<p class="what">${text}</p><p class="meta">${when(at)}</p>` });
  };
  status(a.createdAt, 'Assigned');
  status(a.startedAt, 'Started by the student');
  status(a.submittedAt, 'Submitted');
  if (a.submittedAt && (a.status === 'marking' || (a.status === 'completed' && r.marking.resultVisibility === 'after_review'))) {
    entries.push({ at: a.submittedAt, order: 0.5, body: html`<p class="what">Waiting for marking</p>` });
  }
  status(a.completedAt, 'Completed');
  for (const e of r.events) {
    entries.push({
      at: new Date(e.timestamp),
      order: 1,
      body: html`<p class="what">Event <code>${e.type}</code></p><p class="meta">${when(new Date(e.timestamp))} · <code>${e.id}</code></p>${deliveries(e.deliveries)}`,
    });
  }
  entries.sort((x, y) => x.at.getTime() - y.at.getTime() || x.order - y.order);
  return html`<ol class="timeline">${entries.map((e) => html`<li>${e.body}</li>`)}</ol>`;
}

function deliveries(list: DeliveryView[]): SafeHtml {
  if (list.length === 0) return html`<p class="meta">No webhook endpoint was subscribed.</p>`;
  return html`${list.map(
    (d) => html`<p class="meta">Delivery to <code>${d.url}</code>: ${statusBadge(d.status)}${d.nextAttemptAt ? html`, next attempt ${when(d.nextAttemptAt)}` : ''}</p>
<ol class="attempts">${d.attempts.map(
      (t) => html`<li>${t.statusCode !== null ? `HTTP ${t.statusCode}` : (t.errorClass ?? 'no response')} after ${t.durationMs} ms, ${when(t.attemptedAt)}${
        t.responseExcerpt ? html`<code class="excerpt">${t.responseExcerpt.slice(0, 300)}</code>` : ''
      }</li>`,
    )}</ol>`,
  )}`;
}
