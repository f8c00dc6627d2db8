import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db.js';
import { AppError, notFound, type ErrorDetail } from '../../platform/errors.js';
import type { AnswerValue } from '../marking/auto-mark.js';
import { checkAnswerValue } from './answer-values.js';
import { lockAttempt, upsertAnswer } from './attempts-repo.js';
import type { StudentSession } from './sessions.js';
import { loadTestVersion } from './test-versions.js';
import { acceptsSaves } from './timing.js';

export interface AnswerInput {
  questionId: string;
  value: unknown;
  /** Increases with every edit in the browser; the server keeps the highest. */
  version: number;
}

export interface SaveResult {
  questionId: string;
  /** The version stored after this save: equal to the one sent when it was stored, higher when a newer edit already was. */
  version: number;
  saved: boolean;
}

/**
 * Autosave: stores each answer unless a newer version of it is stored
 * already, so a stale save (a late retry, an older tab) never overwrites a
 * newer answer and a replayed save is harmless. All answers of a request are
 * checked first; one bad answer refuses the request and stores nothing.
 * Refused once the attempt is submitted or past its deadline plus grace.
 */
export async function saveAnswers(
  ctx: AppContext,
  session: StudentSession,
  assignmentId: string,
  answers: AnswerInput[],
): Promise<{ results: SaveResult[]; serverTime: Date }> {
  const now = ctx.clock.now();
  const results = await withTransaction(ctx.pool, async (tx) => {
    const attempt = await lockAttempt(tx, assignmentId, 'share', session.institutionId);
    if (!attempt || attempt.userId !== session.userId) throw notFound('attempt');
    if (attempt.submittedAt) throw new AppError('invalid_state', 'This test has been submitted; answers can no longer change.');
    if (!acceptsSaves(attempt.deadlineAt, now)) throw new AppError('invalid_state', 'Time is up; answers can no longer change.');

    const test = await loadTestVersion(tx, attempt.testVersionId);
    const byId = new Map(test.questions.map((q) => [q.id, q]));
    const details: ErrorDetail[] = [];
    const seen = new Set<string>();
    const checked: Array<{ questionId: string; value: AnswerValue; version: number }> = [];
    answers.forEach((a, i) => {
      const q = byId.get(a.questionId);
      if (!q) return details.push({ field: `answers.${i}.questionId`, message: 'is not a question of this test' });
      if (seen.has(a.questionId)) return details.push({ field: `answers.${i}.questionId`, message: 'appears twice' });
      seen.add(a.questionId);
      const value = checkAnswerValue(q, a.value);
      if (!value.ok) return details.push({ field: `answers.${i}.value`, message: value.message });
      checked.push({ questionId: a.questionId, value: value.value, version: a.version });
    });
    if (details.length > 0) throw new AppError('invalid_request', `${details[0]!.field}: ${details[0]!.message}`, details);

    const out: SaveResult[] = [];
    for (const a of checked) {
      const version = await upsertAnswer(tx, { assignmentId, institutionId: attempt.institutionId, ...a, now });
      out.push({ questionId: a.questionId, version, saved: version === a.version });
    }
    return out;
  });
  return { results, serverTime: now };
}
