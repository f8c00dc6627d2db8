import { formatPoints, html, plural, type SafeHtml } from '../../../platform/web/html.js';
import type { AnswerValue } from '../../attempts/answer-values.js';
import type { MarkingItem } from '../../marking/get-marking-view.js';
import type { Score } from '../../lifecycle/score.js';
import type { Question } from '../../catalog/schemas.js';
import { dataTable, when } from '../ui/components.js';

/**
 * A student's answer as people read it: for choice questions the option
 * texts (which were chosen, which are correct), never the bare option ids;
 * for text answers the text as typed.
 */
export function answerView(q: Question | undefined, answer: AnswerValue, file?: SafeHtml): SafeHtml {
  // A file answer is shown by the caller, who knows the file and the reader (answer-file-view.ts).
  if (q?.type === 'file_upload') return answer === null ? html`<p class="empty">Not answered.</p>` : (file ?? html`<p class="empty">The file is no longer stored.</p>`);
  if (q && (q.type === 'single_choice' || q.type === 'multiple_choice')) {
    const chosen = new Set(Array.isArray(answer) ? answer : answer === null ? [] : [answer]);
    const correct = new Set(q.type === 'single_choice' ? [q.correctOptionId] : q.correctOptionIds);
    return html`${chosen.size === 0 ? html`<p class="empty">Not answered.</p>` : ''}
<ul class="options-list">${q.options.map(
      (o) =>
        html`<li${chosen.has(o.id) ? html` class="chosen"` : ''}>${o.text}${chosen.has(o.id) ? html` <span class="badge">Chosen</span>` : ''}${
          correct.has(o.id) ? html` <span class="hint">(correct answer)</span>` : ''
        }</li>`,
    )}</ul>`;
  }
  if (answer === null || (typeof answer === 'string' && answer.trim() === '')) return html`<p class="empty">Not answered.</p>`;
  const text = Array.isArray(answer) ? answer.join(', ') : answer;
  const expected =
    q?.type === 'short_text'
      ? html`<p class="hint">Accepted: ${q.acceptedAnswers.join(' · ')}</p>`
      : q?.type === 'numeric'
        ? html`<p class="hint">Expected: ${q.answer}${q.tolerance ? ` ± ${q.tolerance}` : ''}</p>`
        : '';
  return html`<p class="answer">${text}</p>${expected}`;
}

export function markView(item: MarkingItem): SafeHtml {
  if (!item.mark) return item.needsMarking ? html`<p><strong>Awaiting a reviewer’s mark</strong> (out of ${formatPoints(item.maxPoints)}).</p>` : html``;
  const m = item.mark;
  const by = m.source === 'auto' ? 'marked automatically' : `marked by ${m.markedBy ?? 'a reviewer'}`;
  return html`<p><strong>${formatPoints(m.points)} of ${plural(Number(formatPoints(item.maxPoints)), 'point')}</strong>, ${by}, ${when(m.markedAt)}.</p>
${m.criteria && m.criteria.length > 0
  ? dataTable({
      caption: html`Marks per criterion<span class="sr-only"> for “${item.prompt}”</span>`,
      stack: true,
      columns: [{ label: 'Criterion' }, { label: 'Points', numeric: true }, { label: 'Comment' }],
      rows: m.criteria.map((c) => [c.criterion, `${formatPoints(c.points)} of ${formatPoints(c.maxPoints)}`, c.comment ?? '–']),
    })
  : ''}
${m.comment ? html`<p class="hint">Comment: ${m.comment}</p>` : ''}`;
}

/** A score in a table cell: "7/8 (87.5%)", or "2/10 so far" while a reviewer has still to mark. */
export function formatScore(s: Score): string {
  return s.gradingStatus === 'pending_review'
    ? `${formatPoints(s.points)}/${formatPoints(s.maxPoints)} so far`
    : `${formatPoints(s.points)}/${formatPoints(s.maxPoints)} (${s.percent}%)`;
}

export function scoreFacts(s: Score | null): SafeHtml {
  if (!s) return html`<dt>Score</dt><dd>None yet</dd>`;
  if (s.gradingStatus === 'pending_review') {
    return html`<dt>Score</dt><dd>${formatPoints(s.points)} of ${formatPoints(s.maxPoints)} points so far, from the automatically marked items; waiting for a reviewer</dd>`;
  }
  const passed = s.passed === null ? 'no pass mark' : s.passed ? 'passed' : 'not passed';
  return html`<dt>Score</dt><dd>${formatPoints(s.points)} of ${formatPoints(s.maxPoints)} points (${s.percent}%), ${passed}; final</dd>`;
}
