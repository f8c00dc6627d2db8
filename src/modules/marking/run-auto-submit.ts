import type { AppContext } from '../../platform/context.js';
import { handleJob } from '../../platform/jobs.js';
import { autoSubmitJob, scheduleAutoSubmit } from '../attempts/auto-submit-job.js';
import { findAttemptById } from '../attempts/find-attempt.js';
import { submitAttempt } from './submit-attempt.js';

/** The deadline job's handler: a job that fires early (another process's clock, or extra time given since) puts itself back. */
export const autoSubmitHandler = handleJob(autoSubmitJob, (ctx: AppContext, payload) => runAutoSubmitJob(ctx, payload.assignmentId));

export async function runAutoSubmitJob(ctx: AppContext, assignmentId: string): Promise<void> {
  const outcome = await submitAttempt(ctx, { assignmentId, by: 'deadline', tenant: { kind: 'automation', reason: 'auto-submit at the deadline' } });
  if (!outcome.submitted && outcome.reason === 'not_due') {
    const attempt = await findAttemptById(ctx.pool, assignmentId);
    if (attempt) await scheduleAutoSubmit(ctx.pool, assignmentId, attempt.deadlineAt);
  }
}
