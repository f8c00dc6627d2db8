import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { ScorePostLogEntry } from '../../lti/score-log.js';
import { when } from '../ui/components.js';

/**
 * "Grades sent to the LMS": for an assignment an LTI launch made, each score
 * Assay posted to the course's gradebook column (one per exam.completed and
 * grading.done), its every attempt in words, and the next retry.
 */
const STATUS_WORDS: Record<ScorePostLogEntry['status'], string> = {
  delivered: 'Accepted',
  pending: 'Sending',
  failed: 'Not accepted',
};
const BADGE: Record<ScorePostLogEntry['status'], string> = { delivered: 'completed', pending: 'pending', failed: 'failed' };

function scoreText(p: ScorePostLogEntry): string {
  const points = p.scoreGiven !== null && p.scoreMaximum !== null ? `${p.scoreGiven} of ${p.scoreMaximum} points, ` : '';
  const progress = p.gradingProgress === 'FullyGraded' ? 'final (FullyGraded)' : p.gradingProgress === 'PendingManual' ? 'waiting for marking (PendingManual)' : p.gradingProgress;
  return `${points}${progress}`;
}

function post(p: ScorePostLogEntry): SafeHtml {
  const next =
    p.status === 'pending'
      ? p.nextAttemptAt
        ? html`<p class="meta">${p.attempts.length === 0 ? 'First attempt' : 'Next attempt'} ${when(p.nextAttemptAt)}.</p>`
        : html`<p class="meta">Waiting for the job queue.</p>`
      : p.status === 'failed'
        ? html`<p class="meta">Assay stopped trying: the LMS refused this score or did not accept it after every retry.</p>`
        : '';
  return html`<li>
<p class="what">${scoreText(p)} <span class="badge badge-${BADGE[p.status]}">${STATUS_WORDS[p.status]}</span></p>
<p class="meta">To <code>${p.issuer}</code>, made ${when(p.createdAt)}${p.deliveredAt ? html`, accepted ${when(p.deliveredAt)}` : ''}.</p>
${next}
${p.attempts.length > 0
  ? html`<ol class="attempts">${p.attempts.map((a) => html`<li>${when(a.attemptedAt)}: ${a.outcome} <span class="hint">(${a.durationMs} ms)</span></li>`)}</ol>`
  : ''}
</li>`;
}

export function ltiScoresPanel(scores: ScorePostLogEntry[]): SafeHtml | string {
  if (scores.length === 0) return '';
  return html`<section class="panel" aria-labelledby="lti-scores-title">
<h2 id="lti-scores-title">Grades sent to the LMS</h2>
<p class="hint">Launched from a learning platform (LTI): each score is sent to the course's gradebook column and retried until the LMS accepts it.</p>
<ol class="timeline">${scores.map(post)}</ol>
</section>`;
}
