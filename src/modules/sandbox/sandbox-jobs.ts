import type { AppContext } from '../../platform/context.js';
import type { Pool } from '../../platform/db.js';
import { enqueueJob, type JobHandler } from '../../platform/jobs.js';
import { purgeOldTestData } from './wipe-test-data.js';

/**
 * The test-mode purge, a recurring job: each run deletes test-mode data older
 * than 30 days and schedules the next under the same unique key, so there is
 * one pending row whatever the number of workers.
 */
export const TEST_DATA_PURGE_JOB = 'sandbox.purge';
export const TEST_DATA_PURGE_KEY = 'recurring:sandbox-purge';
const PURGE_EVERY_MS = 6 * 60 * 60_000;

export function sandboxJobHandlers(ctx: AppContext): Record<string, JobHandler> {
  return {
    [TEST_DATA_PURGE_JOB]: async () => {
      await purgeOldTestData(ctx);
      await enqueueJob(ctx.pool, TEST_DATA_PURGE_JOB, {}, { runAt: new Date(ctx.clock.now().getTime() + PURGE_EVERY_MS), uniqueKey: TEST_DATA_PURGE_KEY });
    },
  };
}

/** Seeds the recurring purge once; a pending one keeps its schedule. */
export async function seedSandboxJobs(pool: Pool): Promise<void> {
  await pool.query(`INSERT INTO jobs (kind, payload, run_at, unique_key) VALUES ($1, '{}', now(), $2) ON CONFLICT (unique_key) DO NOTHING`, [
    TEST_DATA_PURGE_JOB,
    TEST_DATA_PURGE_KEY,
  ]);
}
