import type { AppContext } from '../../platform/context.js';
import type { Queryable } from '../../platform/db.js';
import { defineRecurringJob, seedRecurringJobs } from '../../platform/recurring-jobs.js';
import { detectInterruptions, SWEEP_EVERY_MS } from './detect-interruptions.js';
import { purgeExpiredProctoring } from './purge-proctoring.js';
import { purgeExpiredAnswerFiles } from '../attempts/purge-answer-files.js';
import { sweepPendingUploads } from './direct-uploads.js';

/** Proctoring's durable background work, three recurring jobs (platform/recurring-jobs.ts). */
export const SWEEP_KEY = 'recurring:proctoring-sweep';
export const RETENTION_KEY = 'recurring:proctoring-retention';
const RETENTION_EVERY_MS = 60 * 60_000;

export const interruptionSweepJob = defineRecurringJob({
  kind: 'proctoring.sweep',
  uniqueKey: SWEEP_KEY,
  everyMs: SWEEP_EVERY_MS,
  run: (ctx: AppContext) => detectInterruptions(ctx),
});

export const retentionJob = defineRecurringJob({
  kind: 'proctoring.retention',
  uniqueKey: RETENTION_KEY,
  everyMs: RETENTION_EVERY_MS,
  // A candidate's uploaded answer files keep the same retention as their recording (attempts/purge-answer-files.ts).
  run: async (ctx: AppContext) => ({ proctoring: await purgeExpiredProctoring(ctx), answerFiles: await purgeExpiredAnswerFiles(ctx) }),
});

export const PENDING_UPLOADS_KEY = 'recurring:proctoring-pending-uploads';

/** Direct uploads (S3) presigned but never recorded: recorded when they pass the checks, deleted otherwise (direct-uploads.ts). */
export const pendingUploadsJob = defineRecurringJob({
  kind: 'proctoring.pending-uploads',
  uniqueKey: PENDING_UPLOADS_KEY,
  everyMs: 60_000,
  run: (ctx: AppContext) => sweepPendingUploads(ctx),
});

export const proctoringJobs = [interruptionSweepJob, retentionJob, pendingUploadsJob];

/** Seeds the recurring jobs once; a pending one keeps its schedule. */
export async function seedProctoringJobs(db: Queryable): Promise<void> {
  await seedRecurringJobs(db, proctoringJobs);
}
