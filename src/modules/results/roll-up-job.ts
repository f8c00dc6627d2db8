import type { AppContext } from '../../platform/context.js';
import { handleJobBatch } from '../../platform/jobs.js';
import { resultsRollUpJob } from '../lifecycle/results-rollup-job.js';
import { rollUpAttempts } from './statistics-repo.js';

/**
 * The handler of `results.roll_up`, in batches: the attempts of up to 500
 * jobs join their versions' rollup in one statement (each attempt once; a
 * second run adds nothing). One job per attempt made a shared deadline
 * update the same few rows of a version thousands of times, each update
 * waiting for the one before; a batch sums its attempts first and updates
 * each row once.
 */
export const resultsRollUpHandler = handleJobBatch(resultsRollUpJob, {
  size: 500,
  async run(ctx: AppContext, items) {
    await rollUpAttempts(ctx.pool, items.map((i) => i.payload.assignmentId));
  },
});
