import { Type } from '@sinclair/typebox';
import type { Tx } from '../../platform/db.js';
import { declareJob, enqueueJob } from '../../platform/jobs.js';

/**
 * `results.roll_up`: adds a completed assignment with a final score to the
 * item statistics' rollup. Enqueued by the transition writer in the
 * transaction that makes the score final (exam.completed of an immediate
 * test, grading.done of a reviewed one), so no final score is ever missed;
 * its handler (results/roll-up-job.ts) is registered where the worker is
 * built and adds each attempt once, however often it runs.
 */
export const resultsRollUpJob = declareJob({
  kind: 'results.roll_up',
  payload: Type.Object({ assignmentId: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
});

export async function enqueueResultsRollUp(tx: Tx, assignmentId: string): Promise<void> {
  await enqueueJob(tx, resultsRollUpJob, { assignmentId }, { uniqueKey: `results.roll_up:${assignmentId}`, keepExisting: true });
}
