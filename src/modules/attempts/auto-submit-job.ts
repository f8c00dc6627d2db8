import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.js';
import type { Queryable } from '../../platform/db.js';
import { defineJob, enqueueJob } from '../../platform/jobs.js';
import { findAttemptById } from './attempts-repo.js';
import { submitAttempt } from './submit-attempt.js';
import { autoSubmitAt, autoSubmitKey } from './timing.js';

/**
 * The durable deadline job (`attempt.auto_submit`), enqueued when the student
 * begins, due at deadline + grace. Runs whether or not any page is open.
 * A job that fires early (another process's clock, or extra time given
 * since) puts itself back.
 */
export const autoSubmitJob = defineJob({
  kind: 'attempt.auto_submit',
  payload: Type.Object({ assignmentId: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  run: (ctx: AppContext, payload) => runAutoSubmitJob(ctx, payload.assignmentId),
});

export async function runAutoSubmitJob(ctx: AppContext, assignmentId: string): Promise<void> {
  const outcome = await submitAttempt(ctx, { assignmentId, by: 'deadline', tenant: { kind: 'automation', reason: 'auto-submit at the deadline' } });
  if (!outcome.submitted && outcome.reason === 'not_due') {
    const attempt = await findAttemptById(ctx.pool, assignmentId);
    if (attempt) await scheduleAutoSubmit(ctx.pool, assignmentId, attempt.deadlineAt);
  }
}

/** (Re)schedules an attempt's auto-submit at its deadline + grace; one pending job per attempt. */
export async function scheduleAutoSubmit(db: Queryable, assignmentId: string, deadlineAt: Date): Promise<void> {
  await enqueueJob(db, autoSubmitJob, { assignmentId }, { runAt: autoSubmitAt(deadlineAt), uniqueKey: autoSubmitKey(assignmentId) });
}
