import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.js';
import type { Queryable } from '../../platform/db.js';
import { defineJob, enqueueJob, type JobDefinition } from '../../platform/jobs.js';
import { detectInterruptions, SWEEP_EVERY_MS } from './detect-interruptions.js';
import { purgeExpiredProctoring } from './purge-proctoring.js';

/**
 * Proctoring's durable background work, two recurring jobs: each run
 * schedules the next under the same unique key, so there is one pending row
 * of each whatever the number of workers, and a crashed run is retried by
 * the queue's lease.
 */
export const SWEEP_KEY = 'recurring:proctoring-sweep';
export const RETENTION_KEY = 'recurring:proctoring-retention';
const RETENTION_EVERY_MS = 60 * 60_000;
const NoPayload = Type.Object({}, { additionalProperties: false });

export const interruptionSweepJob: JobDefinition<'proctoring.sweep', typeof NoPayload, AppContext> = defineJob({
  kind: 'proctoring.sweep',
  payload: NoPayload,
  async run(ctx: AppContext): Promise<void> {
    await detectInterruptions(ctx);
    await enqueueJob(ctx.pool, interruptionSweepJob, {}, { runAt: new Date(ctx.clock.now().getTime() + SWEEP_EVERY_MS), uniqueKey: SWEEP_KEY });
  },
});

export const retentionJob: JobDefinition<'proctoring.retention', typeof NoPayload, AppContext> = defineJob({
  kind: 'proctoring.retention',
  payload: NoPayload,
  async run(ctx: AppContext): Promise<void> {
    await purgeExpiredProctoring(ctx);
    await enqueueJob(ctx.pool, retentionJob, {}, { runAt: new Date(ctx.clock.now().getTime() + RETENTION_EVERY_MS), uniqueKey: RETENTION_KEY });
  },
});

export const proctoringJobs = [interruptionSweepJob, retentionJob];

/** Seeds both recurring jobs once; a pending one keeps its schedule. */
export async function seedProctoringJobs(db: Queryable): Promise<void> {
  await enqueueJob(db, interruptionSweepJob, {}, { uniqueKey: SWEEP_KEY, keepExisting: true });
  await enqueueJob(db, retentionJob, {}, { uniqueKey: RETENTION_KEY, keepExisting: true });
}
