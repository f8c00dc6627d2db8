import { Type } from '@sinclair/typebox';
import type { Queryable } from '../../platform/db.js';
import { declareJob, enqueueJob } from '../../platform/jobs.js';
import { autoSubmitAt, autoSubmitKey } from './timing.js';

/**
 * The durable deadline job (`attempt.auto_submit`), enqueued when the student
 * begins, due at deadline + grace. Runs whether or not any page is open.
 * Declared here, where attempts schedule it; its handler is the submission's
 * (marking/run-auto-submit.ts), registered where the worker is built.
 */
export const autoSubmitJob = declareJob({
  kind: 'attempt.auto_submit',
  payload: Type.Object({ assignmentId: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
});

/** (Re)schedules an attempt's auto-submit at its deadline + grace; one pending job per attempt. */
export async function scheduleAutoSubmit(db: Queryable, assignmentId: string, deadlineAt: Date): Promise<void> {
  await enqueueJob(db, autoSubmitJob, { assignmentId }, { runAt: autoSubmitAt(deadlineAt), uniqueKey: autoSubmitKey(assignmentId) });
}
