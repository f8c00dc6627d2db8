import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.js';
import type { Queryable } from '../../platform/db.js';
import { defineJob, enqueueJob, type JobDefinition } from '../../platform/jobs.js';
import { purgeOldTestData } from './wipe-test-data.js';

/**
 * The test-mode purge, a recurring job: each run deletes test-mode data older
 * than 30 days and schedules the next under the same unique key, so there is
 * one pending row whatever the number of workers.
 */
export const TEST_DATA_PURGE_KEY = 'recurring:sandbox-purge';
const PURGE_EVERY_MS = 6 * 60 * 60_000;
const NoPayload = Type.Object({}, { additionalProperties: false });

export const testDataPurgeJob: JobDefinition<'sandbox.purge', typeof NoPayload, AppContext> = defineJob({
  kind: 'sandbox.purge',
  payload: NoPayload,
  async run(ctx: AppContext): Promise<void> {
    await purgeOldTestData(ctx);
    await enqueueJob(ctx.pool, testDataPurgeJob, {}, { runAt: new Date(ctx.clock.now().getTime() + PURGE_EVERY_MS), uniqueKey: TEST_DATA_PURGE_KEY });
  },
});

/** Seeds the recurring purge once; a pending one keeps its schedule. */
export async function seedSandboxJobs(db: Queryable): Promise<void> {
  await enqueueJob(db, testDataPurgeJob, {}, { uniqueKey: TEST_DATA_PURGE_KEY, keepExisting: true });
}
