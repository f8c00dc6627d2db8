import type { AppContext } from '../../platform/context.js';
import { handleJobBatch } from '../../platform/jobs.js';
import { autoSubmitJob, scheduleAutoSubmit } from '../attempts/auto-submit-job.js';
import { findAttemptById } from '../attempts/find-attempt.js';
import { submitAttempt, submitAttemptsAtDeadline, type SubmitOutcome } from './submit-attempt.js';

/**
 * Attempts per run of the deadline job. A shared deadline makes thousands due
 * at once: in batches, each costs a fraction of a transaction, a claim and a
 * commit (docs/scaling.md has the figures); 50 keeps a batch's transaction,
 * which holds its attempts' locks, well under a second.
 */
export const AUTO_SUBMIT_BATCH = 50;

/**
 * The deadline job's handler, in batches: the due attempts submitted in one
 * transaction, or one by one when the batch as a whole fails. A job that
 * fires early (extra time given since) puts itself back.
 */
export const autoSubmitHandler = handleJobBatch(autoSubmitJob, {
  size: AUTO_SUBMIT_BATCH,
  async run(ctx: AppContext, items) {
    const ids = items.map((i) => i.payload.assignmentId);
    const together = ids.length > 1 ? await submitAttemptsAtDeadline(ctx, ids) : null;
    const failures = new Map<number, unknown>();
    for (const item of items) {
      const id = item.payload.assignmentId;
      try {
        const outcome = together?.get(id) ?? (await submitAttempt(ctx, { assignmentId: id, by: 'deadline', tenant: automation }));
        await putBackIfEarly(ctx, id, outcome);
      } catch (err) {
        failures.set(item.job.id, err);
      }
    }
    return failures;
  },
});

const automation = { kind: 'automation', reason: 'auto-submit at the deadline' } as const;

export async function runAutoSubmitJob(ctx: AppContext, assignmentId: string): Promise<void> {
  await putBackIfEarly(ctx, assignmentId, await submitAttempt(ctx, { assignmentId, by: 'deadline', tenant: automation }));
}

async function putBackIfEarly(ctx: AppContext, assignmentId: string, outcome: SubmitOutcome): Promise<void> {
  if (outcome.submitted || outcome.reason !== 'not_due') return;
  const attempt = await findAttemptById(ctx.pool, assignmentId);
  if (attempt) await scheduleAutoSubmit(ctx.pool, assignmentId, attempt.deadlineAt);
}
