import type { AppContext } from '../../../platform/context.js';
import { createJobWorker, type WorkerOptions } from '../../../platform/job-worker.js';
import { describeAiMarking } from './ai-status.js';
import { createChatProvider } from './chat-provider.js';
import { aiMarkHandler } from './run-ai-mark-job.js';

/**
 * AI marking jobs run in a job worker of their own, claiming only
 * `marking.ai_mark`, with ASSAY_AI_CONCURRENCY slots: model calls that take
 * up to ASSAY_AI_TIMEOUT_MS each can then never occupy the slots of the
 * deadline auto-submits, expiries and purges of the main worker. Its lease
 * outlasts a call, so a healthy call is never taken over by another worker.
 */
export type WorkerLog = NonNullable<WorkerOptions<unknown>['log']>;

/** The kinds the AI marking worker claims (and the main worker does not). */
export const aiMarkingJobs = [aiMarkHandler];

export function createAiMarkingWorker(ctx: AppContext, connectionString: string, log?: WorkerLog) {
  const ai = ctx.config.ai;
  // With AI off the worker still runs: jobs queued while it was on are handed to reviewers, not left pending.
  const provider = ai ? createChatProvider(ai) : null;
  const worker = createJobWorker({
    pool: ctx.pool,
    connectionString,
    clock: ctx.clock,
    jobs: aiMarkingJobs,
    context: { ...ctx, provider },
    concurrency: ai?.concurrency ?? 1,
    leaseMs: (ai?.timeoutMs ?? 60_000) * 2 + 30_000,
    ...(log ? { log } : {}),
  });
  return {
    provider,
    async start(): Promise<void> {
      const line = describeAiMarking(ctx.config);
      log?.info(line.fields, line.message);
      await worker.start();
    },
    drain: () => worker.drain(),
    async stop(): Promise<void> {
      await worker.stop();
      await provider?.close();
    },
  };
}

export type AiMarkingWorker = ReturnType<typeof createAiMarkingWorker>;
