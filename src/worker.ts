import type { AppContext, JobContext } from './platform/context.js';
import { resultsRollUpHandler } from './modules/results/roll-up-job.js';
import { type AnyJobDefinition } from './platform/jobs.js';
import { createJobWorker, type WorkerOptions } from './platform/job-worker.js';
import { defineRecurringJob, seedRecurringJobs } from './platform/recurring-jobs.js';
import { expireAssignmentJob } from './modules/assignments/expire-job.js';
import { purgeExpiredKeys } from './modules/assignments/idempotency.js';
import { autoSubmitHandler } from './modules/marking/run-auto-submit.js';
import { purgeExpiredSessions } from './modules/assignments/student-sessions.js';
import { purgeOldEvents } from './modules/events/purge-events.js';
import { maintainPartitions } from './platform/partitions.js';
import { createWebhookDispatcher } from './modules/webhooks/dispatcher.js';
import { installWebhookFanOut } from './modules/webhooks/fan-out.js';
import { endpointDisabledMailJob } from './modules/webhooks/endpoint-disabled-mail.js';
import { proctoringJobs, seedProctoringJobs } from './modules/proctoring/proctoring-jobs.js';
import { createAiMarkingWorker } from './modules/marking/ai/ai-worker.js';
import { createMailer, type MailLog, type Mailer } from './platform/mail.js';
import { signInMailJob } from './modules/staff/sign-in-mail.js';
import { purgeStaffSignIns } from './modules/staff/purge-sign-ins.js';
import { seedSandboxJobs, testDataPurgeJob } from './modules/sandbox/sandbox-jobs.js';
import { installLtiScoreFanOut, ltiScoreJob } from './modules/lti/ags.js';
import { purgeLtiLaunchLeftovers } from './modules/lti/purge-launches.js';

const PURGE_EVERY_MS = 60 * 60 * 1000;
export const PURGE_KEY = 'recurring:purge';

/**
 * Hourly: the history tables' partitions made ahead (and rows that landed in
 * DEFAULT moved to their month), then idempotency keys, student sessions,
 * old events' partitions, used sign-in links and LTI login leftovers past
 * their retention.
 */
export const purgeJob = defineRecurringJob({
  kind: 'maintenance.purge',
  uniqueKey: PURGE_KEY,
  everyMs: PURGE_EVERY_MS,
  async run(ctx: AppContext): Promise<void> {
    const now = ctx.clock.now();
    await maintainPartitions(ctx.pool, now);
    await purgeExpiredKeys(ctx.pool, now);
    await purgeExpiredSessions(ctx.pool, now);
    await purgeOldEvents(ctx.pool, now);
    await purgeStaffSignIns(ctx.pool, now);
    await purgeLtiLaunchLeftovers(ctx.pool, now);
  },
});

/**
 * Every kind of background job the main worker runs. AI marking's kind runs
 * in a worker of its own (modules/marking/ai/ai-worker.ts); webhook
 * deliveries are not jobs but rows of their own queue (the dispatcher).
 */
export const workerJobs: ReadonlyArray<AnyJobDefinition<JobContext>> = [
  signInMailJob,
  expireAssignmentJob,
  autoSubmitHandler,
  purgeJob,
  endpointDisabledMailJob,
  testDataPurgeJob,
  ltiScoreJob,
  ...proctoringJobs,
  resultsRollUpHandler,
];

/** The context the main worker's jobs run with. */
export function jobContext(ctx: AppContext, opts: { log?: MailLog; mailer?: Mailer } = {}): JobContext {
  // Events appended by jobs (expiry, auto-submit) get their webhook deliveries in the same transaction.
  installWebhookFanOut();
  installLtiScoreFanOut();
  return { ...ctx, mailer: opts.mailer ?? createMailer(ctx.config.mail, opts.log) };
}

export async function startWorker(ctx: AppContext, connectionString: string, log?: WorkerOptions<JobContext>['log']) {
  const worker = createJobWorker({ pool: ctx.pool, connectionString, clock: ctx.clock, jobs: workerJobs, context: jobContext(ctx, { log }), log });
  // Seed the recurring jobs once; a pending one keeps its schedule.
  await seedRecurringJobs(ctx.pool, [purgeJob]);
  await seedProctoringJobs(ctx.pool);
  await seedSandboxJobs(ctx.pool);
  await worker.start();
  // AI marking claims its own job kind with its own concurrency (see modules/marking/ai/ai-worker.ts).
  const aiWorker = createAiMarkingWorker(ctx, connectionString, log);
  await aiWorker.start();
  // Webhook delivery has its own queue (the delivery rows) and dispatcher; see modules/webhooks/dispatcher.ts.
  const dispatcher = createWebhookDispatcher({ connectionString, clock: ctx.clock, config: ctx.config, log });
  await dispatcher.start();
  return {
    workerId: worker.workerId,
    async stop(): Promise<void> {
      await Promise.all([worker.stop(), aiWorker.stop(), dispatcher.stop()]);
    },
  };
}
