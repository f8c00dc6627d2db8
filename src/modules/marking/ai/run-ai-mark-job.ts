import type { AppContext } from '../../../platform/context.js';
import { withTransaction } from '../../../platform/db.js';
import { enqueueJob, handleJob } from '../../../platform/jobs.js';
import { aiMarkJob, type AiMarkPayload } from './ai-mark-job.js';
import { findAssignment } from '../../assignments/find-assignment.js';
import { listAnswers, lockAttempt } from '../../attempts/find-attempt.js';
import { deliveredTestOf } from '../../attempts/delivered-test.js';
import { MAX_RETRY_AFTER_MS } from '../../../platform/http/retry-after.js';
import { isAiQuestion, markingTask } from './ai-items.js';
import type { ChatFailure, ChatProvider } from './chat-provider.js';
import { AI_OFF_REASON, aiMarkKey } from './ai-mark-key.js';
import { INJECTION_FLAG, screenAnswer } from './injection-screen.js';
import { PROMPT_VERSION, buildMarkingMessages, replySchema } from './prompt.js';
import { checkReply } from './reply.js';
import { settleAiMarking } from './settle-ai-marking.js';
import { findSuggestion, recordNoSuggestion, storeSuggestion, takeFromBudget } from './suggestions-repo.js';

/**
 * The `marking.ai_mark` job: one model call for one item, and what follows.
 *
 * - Not pending any more (done by an earlier run, or handed over): nothing.
 * - The assignment left `marking` (a reviewer finished first): handed over.
 * - AI marking off in this process: handed over with that reason.
 * - Budget: each call is counted for the institution's UTC day before it is
 *   made; past ASSAY_AI_DAILY_BUDGET the item is handed over, no call made.
 * - The answer is screened for injection; a flagged answer is still sent (the
 *   reviewer gets a suggestion to weigh) but its suggestion carries
 *   `possible_injection`, so it can never decide a mark by itself.
 * - A valid reply is stored with its provenance, then decide mode is settled.
 * - Timeouts, 408, 429, 5xx, network errors and invalid replies are retried
 *   on ASSAY_AI_RETRY_SCHEDULE (a 429's or 503's Retry-After, when given, sets
 *   the time instead, capped at 24 h) by moving this job's run time; after the
 *   last attempt, or at once for other 4xx (a wrong key or model will not
 *   mend itself), the item is `failed` with the reason and a reviewer marks.
 * The state written after the call, the retry's job included, is one
 * transaction that takes the attempt's lock first, like every marking change.
 */
export interface AiMarkingRunner {
  provider: ChatProvider | null;
}

/** Runs in the AI marking worker (ai-worker.ts), whose context carries the provider. */
export const aiMarkHandler = handleJob(aiMarkJob, (ctx: AppContext & AiMarkingRunner, payload) => runAiMarkJob(ctx, ctx, payload));

export async function runAiMarkJob(ctx: AppContext, runner: AiMarkingRunner, payload: AiMarkPayload): Promise<void> {
  const key = { institutionId: payload.institutionId, assignmentId: payload.assignmentId, questionId: payload.questionId };
  const suggestion = await findSuggestion(ctx.pool, key);
  if (!suggestion || suggestion.status !== 'pending') return;

  const handOver = (reason: string, status: 'failed' | 'handed_over' = 'handed_over', extra: { attempts?: number; flags?: string[] } = {}) =>
    withTransaction(ctx.pool, async (tx) => {
      await lockAttempt(tx, key.assignmentId, 'update', { institutionId: key.institutionId });
      const current = await findSuggestion(tx, key, true);
      if (!current || current.status !== 'pending') return;
      const now = ctx.clock.now();
      await recordNoSuggestion(tx, key, { status, reason, attempts: extra.attempts ?? current.attempts, now, ...(extra.flags ? { flags: extra.flags } : {}) });
    });

  const row = await findAssignment(ctx.pool, key.institutionId, key.assignmentId);
  if (!row || row.status !== 'marking') return handOver(`Not sent: marking had already finished (the assignment is ${row?.status ?? 'gone'}).`);
  const ai = ctx.config.ai;
  if (!ai || !runner.provider) return handOver(AI_OFF_REASON);
  const test = await deliveredTestOf(ctx.pool, row);
  const question = test.questions.find((q) => q.id === key.questionId);
  // Versions are immutable and the row was written from this one: a mismatch is corruption, not input.
  if (!question || !isAiQuestion(question)) throw new Error(`AI marking: ${key.questionId} is not an AI-marked question of ${row.testVersionId}`);
  const answer = (await listAnswers(ctx.pool, key.institutionId, key.assignmentId)).find((a) => a.questionId === key.questionId)?.value;

  const task = markingTask(question, answer);
  const screen = screenAnswer(task.answer);
  const screenFlags = screen.flagged ? [INJECTION_FLAG] : [];
  if (!(await takeFromBudget(ctx.pool, key.institutionId, ctx.clock.now(), ai.dailyBudget))) {
    return handOver(`Not sent: the institution's daily AI marking budget (${ai.dailyBudget} calls, UTC day) is spent.`, 'handed_over', {
      flags: screenFlags,
    });
  }

  const attempts = suggestion.attempts + 1;
  const outcome = await runner.provider.complete({ messages: buildMarkingMessages(task), schema: replySchema(task.criteria) }, ctx.clock.now());
  const checked = outcome.ok ? checkReply(outcome.content, task.criteria) : null;

  await withTransaction(ctx.pool, async (tx) => {
    await lockAttempt(tx, key.assignmentId, 'update', { institutionId: key.institutionId });
    const current = await findSuggestion(tx, key, true);
    if (!current || current.status !== 'pending') return;
    const now = ctx.clock.now();
    if (outcome.ok && checked?.ok) {
      const flags = [...new Set([...screenFlags, ...checked.reply.flags])];
      await storeSuggestion(tx, key, {
        ...checked.reply,
        flags,
        attempts,
        now,
        provenance: {
          model: ai.model,
          promptVersion: PROMPT_VERSION,
          requestId: outcome.requestId,
          latencyMs: outcome.latencyMs,
          promptTokens: outcome.promptTokens,
          completionTokens: outcome.completionTokens,
        },
      });
      await settleAiMarking(tx, { institutionId: key.institutionId, assignmentId: key.assignmentId, now });
      return;
    }
    const failure: Pick<ChatFailure, 'retryable' | 'reason' | 'retryAfterMs'> = outcome.ok
      ? { retryable: true, reason: checked!.ok ? 'unreachable' : checked!.reason, retryAfterMs: null }
      : outcome;
    const delay = ai.retryScheduleMs[attempts];
    if (!failure.retryable || delay === undefined) {
      const reason = failure.retryable ? `Gave up after ${attempts} attempt(s): ${failure.reason}.` : `Not retried: ${failure.reason}.`;
      await recordNoSuggestion(tx, key, { status: 'failed', reason, attempts, flags: screenFlags, now });
      return;
    }
    const wait = failure.retryAfterMs !== null ? Math.min(Math.max(failure.retryAfterMs, 0), MAX_RETRY_AFTER_MS) : delay;
    const runAt = new Date(now.getTime() + wait);
    await recordNoSuggestion(tx, key, {
      status: 'pending',
      reason: `Attempt ${attempts} failed: ${failure.reason}; next attempt at ${runAt.toISOString()}.`,
      attempts,
      now,
    });
    await enqueueJob(tx, aiMarkJob, payload, { runAt, uniqueKey: aiMarkKey(key.assignmentId, key.questionId) });
  });
}
