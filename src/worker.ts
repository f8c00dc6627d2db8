import type { AppContext } from './platform/context.js';
import { createJobWorker, enqueueJob, type JobHandler } from './platform/jobs.js';
import { EXPIRE_JOB } from './modules/assignments/create-assignment.js';
import { runExpireJob } from './modules/assignments/get-assignment.js';
import { purgeExpiredKeys } from './modules/assignments/idempotency.js';
import { AUTO_SUBMIT_JOB, runAutoSubmitJob } from './modules/attempts/submit-attempt.js';
import { purgeExpiredSessions } from './modules/attempts/sessions.js';
import { purgeOldEvents } from './modules/events/purge-events.js';
import { createWebhookDispatcher } from './modules/webhooks/dispatcher.js';
import { installWebhookFanOut } from './modules/webhooks/fan-out.js';
import { proctoringJobHandlers, seedProctoringJobs } from './modules/proctoring/proctoring-jobs.js';
import { createAiMarkingWorker } from './modules/marking/ai/ai-worker.js';
import { createMailer, type MailLog, type Mailer } from './platform/mail.js';
import { SIGN_IN_MAIL_JOB, runSignInMailJob } from './modules/staff/sign-in-mail.js';
import { purgeStaffSignIns } from './modules/staff/purge-sign-ins.js';
import { sandboxJobHandlers, seedSandboxJobs } from './modules/sandbox/sandbox-jobs.js';

export const PURGE_JOB = 'maintenance.purge';
const PURGE_EVERY_MS = 60 * 60 * 1000;

/** Every kind of background job and the module function that runs it. */
export function jobHandlers(ctx: AppContext, opts: { log?: MailLog; mailer?: Mailer } = {}): Record<string, JobHandler> {
  // Events appended by jobs (expiry, auto-submit) get their webhook deliveries in the same transaction.
  installWebhookFanOut();
  const mailer = opts.mailer ?? createMailer(ctx.config.mail, opts.log);
  return {
    [SIGN_IN_MAIL_JOB]: (job) => runSignInMailJob(ctx, mailer, job),
    [EXPIRE_JOB]: (job) => runExpireJob(ctx.pool, String(job.payload.assignmentId), ctx.clock.now()),
    [AUTO_SUBMIT_JOB]: (job) => runAutoSubmitJob(ctx, String(job.payload.assignmentId)),
    [PURGE_JOB]: async () => {
      const now = ctx.clock.now();
      await purgeExpiredKeys(ctx.pool, now);
      await purgeExpiredSessions(ctx.pool, now);
      await purgeOldEvents(ctx.pool, now);
      await purgeStaffSignIns(ctx.pool, now);
      // Recurring: the job schedules its next run.
      await enqueueJob(ctx.pool, PURGE_JOB, {}, { runAt: new Date(now.getTime() + PURGE_EVERY_MS), uniqueKey: 'recurring:purge' });
    },
    ...proctoringJobHandlers(ctx),
    ...sandboxJobHandlers(ctx),
  };
}

export async function startWorker(ctx: AppContext, connectionString: string, log?: Parameters<typeof createJobWorker>[0]['log']) {
  const worker = createJobWorker({ pool: ctx.pool, connectionString, clock: ctx.clock, handlers: jobHandlers(ctx, { log }), log });
  // Seed the recurring purge once; a running one keeps its schedule.
  await ctx.pool.query(
    `INSERT INTO jobs (kind, payload, run_at, unique_key) VALUES ($1, '{}', now(), 'recurring:purge') ON CONFLICT (unique_key) DO NOTHING`,
    [PURGE_JOB],
  );
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
