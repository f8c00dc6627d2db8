import type { MessageKey, Translator } from '../../../platform/i18n/catalogue.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { portalTranslator, richText } from '../ui/portal-text.js';
import type { ScorePostLogEntry } from '../../lti/score-log.js';
import { when } from '../ui/components.js';

/**
 * "Grades sent to the LMS": for an assignment an LTI launch made, each score
 * Assay posted to the course's gradebook column (one per exam.completed and
 * grading.done), its every attempt in words, and the next retry.
 */
const STATUS_WORDS: Record<ScorePostLogEntry['status'], MessageKey> = {
  delivered: 'portal.ltiScores.status.delivered',
  pending: 'portal.ltiScores.status.pending',
  failed: 'portal.ltiScores.status.failed',
};
const BADGE: Record<ScorePostLogEntry['status'], string> = { delivered: 'completed', pending: 'pending', failed: 'failed' };

function scoreText(t: Translator, p: ScorePostLogEntry): string {
  const progress = t.t('portal.ltiScores.progress', { progress: p.gradingProgress });
  return p.scoreGiven !== null && p.scoreMaximum !== null
    ? t.t('portal.ltiScores.pointsAndProgress', { given: String(p.scoreGiven), maximum: String(p.scoreMaximum), progress })
    : progress;
}

function post(t: Translator, p: ScorePostLogEntry): SafeHtml {
  const next =
    p.status === 'pending'
      ? p.nextAttemptAt
        ? html`<p class="meta">${richText(t, p.attempts.length === 0 ? 'portal.ltiScores.firstAttempt' : 'portal.ltiScores.nextAttempt', { when: when(p.nextAttemptAt, t) })}</p>`
        : html`<p class="meta">${t.t('portal.ltiScores.waitingForQueue')}</p>`
      : p.status === 'failed'
        ? html`<p class="meta">${t.t('portal.ltiScores.stopped')}</p>`
        : '';
  const made = { issuer: html`<code>${p.issuer}</code>`, made: when(p.createdAt, t) };
  return html`<li>
<p class="what">${scoreText(t, p)} <span class="badge badge-${BADGE[p.status]}">${t.t(STATUS_WORDS[p.status])}</span></p>
<p class="meta">${p.deliveredAt ? richText(t, 'portal.ltiScores.toAccepted', { ...made, accepted: when(p.deliveredAt, t) }) : richText(t, 'portal.ltiScores.to', made)}</p>
${next}
${p.attempts.length > 0
  ? html`<ol class="attempts">${p.attempts.map(
      (a) => html`<li>${richText(t, 'portal.ltiScores.attempt', { when: when(a.attemptedAt, t), outcome: a.outcome })} <span class="hint">${t.t('portal.ltiScores.duration', { ms: String(a.durationMs) })}</span></li>`,
    )}</ol>`
  : ''}
</li>`;
}

export function ltiScoresPanel(scores: ScorePostLogEntry[], t: Translator = portalTranslator()): SafeHtml | string {
  if (scores.length === 0) return '';
  return html`<section class="panel" aria-labelledby="lti-scores-title">
<h2 id="lti-scores-title">${t.t('portal.ltiScores.heading')}</h2>
<p class="hint">${richText(t, 'portal.ltiScores.hint')}</p>
<ol class="timeline">${scores.map((p) => post(t, p))}</ol>
</section>`;
}
