import type { MessageKey, Translator } from '../../../platform/i18n/catalogue.js';
import { formatPoints, html, type SafeHtml } from '../../../platform/web/html.js';
import type { AiMarkingStatus } from '../../marking/ai/ai-status.js';
import type { MarkingItem } from '../../marking/get-marking-view.js';
import { csrfField, dataTable, hiddenFields } from '../ui/components.js';
import { operatorField, type Scope } from '../ui/page.js';
import { portalTranslator, richText } from '../ui/portal-text.js';

/**
 * What the model suggested for an item, for the reviewer who decides: points
 * per criterion with the model's rationale, its confidence, its flags (a
 * possible prompt injection as a warning) and its provenance; or why there
 * is no suggestion. The rationale is the model's text: shown escaped, never
 * as markup.
 */
const FLAG_TEXT: Record<string, MessageKey> = {
  possible_injection: 'portal.ai.flag.possibleInjection',
  points_clamped: 'portal.ai.flag.pointsClamped',
  total_mismatch: 'portal.ai.flag.totalMismatch',
  off_topic: 'portal.ai.flag.offTopic',
  possible_plagiarism: 'portal.ai.flag.possiblePlagiarism',
  not_in_language_of_question: 'portal.ai.flag.notInLanguageOfQuestion',
};

const percent = (x: number) => `${Math.round(x * 100)}%`;

/** Why there is no suggestion yet, or none at all. */
function noSuggestion(t: Translator, ai: NonNullable<MarkingItem['ai']>): string {
  if (ai.status !== 'pending') {
    return ai.failureReason ? t.t('portal.ai.noSuggestion', { reason: ai.failureReason }) : t.t('portal.ai.noSuggestionUnknown');
  }
  if (ai.attempts === 0) return t.t('portal.ai.pending');
  return ai.failureReason ? t.t('portal.ai.pendingAttemptFailed', { attempt: ai.attempts, reason: ai.failureReason }) : t.t('portal.ai.pendingAttempt', { attempt: ai.attempts });
}

export function aiSuggestionPanel(item: MarkingItem, n: number, t: Translator = portalTranslator()): SafeHtml | string {
  const ai = item.ai;
  if (!ai) return '';
  if (ai.status !== 'suggested') {
    return html`<div class="ai-suggestion" role="note" aria-labelledby="ai-${n}-title"><h3 id="ai-${n}-title">${t.t('portal.ai.title')}</h3><p>${noSuggestion(t, ai)}</p></div>`;
  }
  const p = ai.provenance;
  const code = (s: string) => html`<code>${s}</code>`;
  const facts = [
    p.model ? richText(t, 'portal.ai.provenance.model', { model: code(p.model) }) : null,
    p.promptVersion ? richText(t, 'portal.ai.provenance.prompt', { version: code(p.promptVersion) }) : null,
    p.latencyMs !== null
      ? p.latencyMs < 1000
        ? t.t('portal.ai.provenance.milliseconds', { ms: String(p.latencyMs) })
        : t.t('portal.ai.provenance.seconds', { s: (p.latencyMs / 1000).toFixed(1) })
      : null,
    p.promptTokens !== null || p.completionTokens !== null
      ? t.t('portal.ai.provenance.tokens', { prompt: String(p.promptTokens ?? '?'), completion: String(p.completionTokens ?? '?') })
      : null,
    p.requestId ? richText(t, 'portal.ai.provenance.request', { id: code(p.requestId) }) : null,
  ].filter((x) => x !== null);
  const confidence = ai.confidence === null ? t.t('portal.ai.confidenceNotGiven') : t.t('portal.ai.confidence', { percent: percent(ai.confidence) });
  return html`<div class="ai-suggestion" role="note" aria-labelledby="ai-${n}-title">
<h3 id="ai-${n}-title">${t.t('portal.ai.titlePoints', { points: formatPoints(ai.points ?? 0), max: formatPoints(ai.maxPoints) })}</h3>
<p>${ai.mode === 'decide'
    ? richText(t, 'portal.ai.confidenceDecides', { confidence, decides: html`<span class="hint">${t.t('portal.ai.decidesAlone', { percent: percent(ai.minConfidence) })}</span>` })
    : t.t('portal.ai.confidenceSentence', { confidence })}</p>
${ai.flags.map(
  (f) =>
    html`<p class="ai-flag"><strong>${t.t('portal.ai.warning')}</strong> ${
      FLAG_TEXT[f] ? t.t(FLAG_TEXT[f]) : richText(t, 'portal.ai.flag.other', { flag: code(f) })
    }</p>`,
)}
${ai.criteria && ai.criteria.length > 0
  ? dataTable({
      caption: t.t('portal.ai.criteria.caption', { n }),
      stack: true,
      columns: [{ label: t.t('portal.ai.criteria.criterion') }, { label: t.t('portal.ai.criteria.points'), numeric: true }, { label: t.t('portal.ai.criteria.rationale') }],
      rows: ai.criteria.map((c) => [c.criterion, t.t('portal.ai.criteria.pointsOf', { points: formatPoints(c.points), max: formatPoints(c.maxPoints) }), c.rationale]),
    })
  : ''}
<p class="hint">${facts.length > 0 ? richText(t, 'portal.ai.markedBy', { facts: facts.reduce<SafeHtml>((acc, f, i) => html`${acc}${i > 0 ? ', ' : ''}${f}`, html``) }) : ''}${
    ai.reviewerPoints !== null
      ? html` ${t.t(ai.reviewerMatches ? 'portal.ai.reviewerGaveSame' : 'portal.ai.reviewerGave', { points: formatPoints(ai.reviewerPoints) })}`
      : ''
  }</p>
</div>`;
}

/** The Accept button: a form of its own (forms cannot nest), carrying the marks version the page shows. */
export function acceptForm(scope: Scope, assignmentId: string, version: string, items: MarkingItem[]): SafeHtml | string {
  const { t } = scope;
  const waiting = items.filter((i) => i.needsMarking);
  const suggested = waiting.filter((i) => i.ai?.status === 'suggested');
  if (suggested.length === 0) return '';
  const finishes = suggested.length === waiting.length;
  return html`<form method="post" action="/portal/marking/${assignmentId}/accept-ai" class="panel accept-ai">
${csrfField(scope.p.sessionCsrf)}${hiddenFields({ ...operatorField(scope), version })}
<h2>${t.t('portal.ai.accept.heading')}</h2>
<p>${finishes
    ? t.t('portal.ai.accept.finishes', { items: suggested.length })
    : t.t('portal.ai.accept.partly', { suggested: suggested.length, others: waiting.length - suggested.length })}
${suggested.some((i) => i.ai!.flags.length > 0) ? html` <strong>${t.t('portal.ai.accept.checkWarnings')}</strong>` : ''}</p>
<button type="submit" class="button">${t.t('portal.ai.accept.button')}</button>
</form>`;
}

/** The Marking page's line on AI marking: on with which model, or off (AI-marked items then wait for reviewers). */
export function aiStatusNotice(status: AiMarkingStatus, t: Translator = portalTranslator()): SafeHtml {
  return status.enabled
    ? html`<p class="hint ai-status">${richText(t, 'portal.ai.status.on', { model: html`<code>${status.model}</code>` })}</p>`
    : html`<p class="notice">${t.t('portal.ai.status.off')}</p>`;
}
