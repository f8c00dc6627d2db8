import type { AppContext } from '../../platform/context.js';
import type { Queryable } from '../../platform/db.js';
import { defineRecurringJob, seedRecurringJobs } from '../../platform/recurring-jobs.js';
import { purgeOldTestData } from './wipe-test-data.js';

/** The test-mode purge, a recurring job (platform/recurring-jobs.ts): each run deletes test-mode data older than 30 days. */
export const TEST_DATA_PURGE_KEY = 'recurring:sandbox-purge';
const PURGE_EVERY_MS = 6 * 60 * 60_000;

export const testDataPurgeJob = defineRecurringJob({
  kind: 'sandbox.purge',
  uniqueKey: TEST_DATA_PURGE_KEY,
  everyMs: PURGE_EVERY_MS,
  run: (ctx: AppContext) => purgeOldTestData(ctx),
});

/** Seeds the recurring purge once; a pending one keeps its schedule. */
export async function seedSandboxJobs(db: Queryable): Promise<void> {
  await seedRecurringJobs(db, [testDataPurgeJob]);
}
