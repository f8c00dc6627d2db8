import type { AppContext } from '../../platform/context.js';
import { handleJob } from '../../platform/jobs.js';
import { resultsRollUpJob } from '../lifecycle/results-rollup-job.js';
import { rollUpAttempts } from './statistics-repo.js';

/** The handler of `results.roll_up`: the attempt joins its version's rollup (once; a second run adds nothing). */
export const resultsRollUpHandler = handleJob(resultsRollUpJob, async (ctx: AppContext, payload) => {
  await rollUpAttempts(ctx.pool, [payload.assignmentId]);
});
