import { formatPoints, html, type SafeHtml } from '../../../platform/web/html.js';
import type { AiMarkingStatus } from '../../marking/ai/ai-status.js';
import type { MarkingItem } from '../../marking/get-marking-view.js';
import { csrfField, dataTable, hiddenFields } from '../ui/components.js';
import { operatorField, type Scope } from '../ui/page.js';

/**
 * What the model suggested for an item, for the reviewer who decides: points
 * per criterion with the model's rationale, its confidence, its flags (a
 * possible prompt injection as a warning) and its provenance; or why there
 * is no suggestion. The rationale is the model's text: shown escaped, never
 * as markup.
 */
const FLAG_TEXT: Record<string, string> = {
  possible_injection: 'The answer seems to address the marker (possible prompt injection). Mark it yourself; the suggestion may have been steered.',
  points_clamped: 'The model gave points outside a criterion’s range; they were clamped.',
  total_mismatch: 'The model’s total did not match its criteria; the criteria were used.',
  off_topic: 'The model thinks the answer is off topic.',
  possible_plagiarism: 'The model suspects copied text.',
  not_in_language_of_question: 'The answer is not in the language of the question.',
};

const percent = (x: number) => `${Math.round(x * 100)}%`;

export function aiSuggestionPanel(item: MarkingItem, n: number): SafeHtml | string {
  const ai = item.ai;
  if (!ai) return '';
  if (ai.status !== 'suggested') {
    const why = ai.status === 'pending' ? `The model has not marked this answer yet${ai.attempts > 0 ? ` (attempt ${ai.attempts}${ai.failureReason ? `: ${ai.failureReason}` : ''})` : ''}.` : `No suggestion: ${ai.failureReason ?? 'the model could not mark this answer'}. Mark it yourself.`;
    return html`<div class="ai-suggestion" role="note" aria-labelledby="ai-${n}-title"><h3 id="ai-${n}-title">AI suggestion</h3><p>${why}</p></div>`;
  }
  const p = ai.provenance;
  const facts = [
    p.model ? html`model <code>${p.model}</code>` : null,
    p.promptVersion ? html`prompt <code>${p.promptVersion}</code>` : null,
    p.latencyMs !== null ? (p.latencyMs < 1000 ? `${p.latencyMs} ms` : `${(p.latencyMs / 1000).toFixed(1)} s`) : null,
    p.promptTokens !== null || p.completionTokens !== null ? `${p.promptTokens ?? '?'} + ${p.completionTokens ?? '?'} tokens` : null,
    p.requestId ? html`request <code>${p.requestId}</code>` : null,
  ].filter((x) => x !== null);
  return html`<div class="ai-suggestion" role="note" aria-labelledby="ai-${n}-title">
<h3 id="ai-${n}-title">AI suggestion: ${formatPoints(ai.points ?? 0)} of ${formatPoints(ai.maxPoints)} points</h3>
<p>Confidence ${ai.confidence === null ? 'not given' : percent(ai.confidence)}${ai.mode === 'decide' ? html` <span class="hint">(the model decides alone from ${percent(ai.minConfidence)} without flags)</span>` : ''}.</p>
${ai.flags.map((f) => html`<p class="ai-flag"><strong>Warning:</strong> ${FLAG_TEXT[f] ?? html`The model flagged <code>${f}</code>.`}</p>`)}
${ai.criteria && ai.criteria.length > 0
  ? dataTable({
      caption: `The model’s marks per criterion for question ${n}`,
      stack: true,
      columns: [{ label: 'Criterion' }, { label: 'Points', numeric: true }, { label: 'Rationale' }],
      rows: ai.criteria.map((c) => [c.criterion, `${formatPoints(c.points)} of ${formatPoints(c.maxPoints)}`, c.rationale]),
    })
  : ''}
<p class="hint">${facts.length > 0 ? html`Marked by ${facts.reduce<SafeHtml>((acc, f, i) => html`${acc}${i > 0 ? ', ' : ''}${f}`, html``)}.` : ''}${
    ai.reviewerPoints !== null ? html` A reviewer gave ${formatPoints(ai.reviewerPoints)} points${ai.reviewerMatches ? ' (the same)' : ''}.` : ''
  }</p>
</div>`;
}

/** The Accept button: a form of its own (forms cannot nest), carrying the marks version the page shows. */
export function acceptForm(scope: Scope, assignmentId: string, version: string, items: MarkingItem[]): SafeHtml | string {
  const waiting = items.filter((i) => i.needsMarking);
  const suggested = waiting.filter((i) => i.ai?.status === 'suggested');
  if (suggested.length === 0) return '';
  const finishes = suggested.length === waiting.length;
  return html`<form method="post" action="/portal/marking/${assignmentId}/accept-ai" class="panel accept-ai">
${csrfField(scope.p.sessionCsrf)}${hiddenFields({ ...operatorField(scope), version })}
<h2>Accept the AI suggestions</h2>
<p>${finishes
    ? `Records the model’s points for ${suggested.length === 1 ? 'the item' : `all ${suggested.length} items`} as your marks and finishes marking (grading.done to the partner).`
    : `Records the model’s points for the ${suggested.length} suggested item${suggested.length === 1 ? '' : 's'} as your marks; the other ${waiting.length - suggested.length} still need${waiting.length - suggested.length === 1 ? 's' : ''} your points.`}
${suggested.some((i) => i.ai!.flags.length > 0) ? html` <strong>Check the warnings above first.</strong>` : ''}</p>
<button type="submit" class="button">Accept AI suggestions</button>
</form>`;
}

/** The Marking page's line on AI marking: on with which model, or off (AI-marked items then wait for reviewers). */
export function aiStatusNotice(status: AiMarkingStatus): SafeHtml {
  return status.enabled
    ? html`<p class="hint ai-status">AI marking is on (model <code>${status.model}</code>): items with AI marking show the model’s suggestion for you to accept or change.</p>`
    : html`<p class="notice">AI marking is off on this installation: every item, including those set up for AI marking, waits for a reviewer.</p>`;
}
