import type { AppContext } from '../../platform/context.js';
import type { Pool } from '../../platform/db.js';
import { enqueueJob, type JobHandler } from '../../platform/jobs.js';
import { detectInterruptions, SWEEP_EVERY_MS } from './detect-interruptions.js';
import { purgeExpiredProctoring } from './purge-proctoring.js';

/**
 * Proctoring's durable background work, two recurring jobs: each run
 * schedules the next under the same unique key, so there is one pending row
 * of each whatever the number of workers, and a crashed run is retried by
 * the queue's lease.
 */
export const INTERRUPTION_SWEEP_JOB = 'proctoring.sweep';
export const RETENTION_JOB = 'proctoring.retention';
export const SWEEP_KEY = 'recurring:proctoring-sweep';
export const RETENTION_KEY = 'recurring:proctoring-retention';
const RETENTION_EVERY_MS = 60 * 60_000;

export function proctoringJobHandlers(ctx: AppContext): Record<string, JobHandler> {
  return {
    [INTERRUPTION_SWEEP_JOB]: async () => {
      await detectInterruptions(ctx);
      await enqueueJob(ctx.pool, INTERRUPTION_SWEEP_JOB, {}, { runAt: new Date(ctx.clock.now().getTime() + SWEEP_EVERY_MS), uniqueKey: SWEEP_KEY });
    },
    [RETENTION_JOB]: async () => {
      await purgeExpiredProctoring(ctx);
      await enqueueJob(ctx.pool, RETENTION_JOB, {}, { runAt: new Date(ctx.clock.now().getTime() + RETENTION_EVERY_MS), uniqueKey: RETENTION_KEY });
    },
  };
}

/** Seeds both recurring jobs once; a pending one keeps its schedule. */
export async function seedProctoringJobs(pool: Pool): Promise<void> {
  await pool.query(
    `INSERT INTO jobs (kind, payload, run_at, unique_key) VALUES ($1, '{}', now(), $2), ($3, '{}', now(), $4) ON CONFLICT (unique_key) DO NOTHING`,
    [INTERRUPTION_SWEEP_JOB, SWEEP_KEY, RETENTION_JOB, RETENTION_KEY],
  );
}
