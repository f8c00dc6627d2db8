import { Type } from '@sinclair/typebox';
import type { Clock } from './clock.js';
import type { Queryable } from './db.js';
import { defineJob, enqueueJob, type JobDefinition } from './jobs.js';

/**
 * A recurring job (purges, sweeps): a job kind with no payload whose every
 * run schedules the next one `everyMs` after it ends, under one unique key,
 * so there is one pending row of it whatever the number of workers, and a
 * crashed run is retried by the queue's lease. Seeded once at worker start;
 * a pending one keeps its schedule.
 */
const NoPayload = Type.Object({}, { additionalProperties: false });

export interface RecurringJob<K extends string = string, C = never> extends JobDefinition<K, typeof NoPayload, C> {
  /** The unique key of its one pending row (`recurring:…`). */
  readonly uniqueKey: string;
  readonly everyMs: number;
}

export function defineRecurringJob<K extends string, C extends { pool: Queryable; clock: Clock }>(definition: {
  kind: K;
  uniqueKey: string;
  everyMs: number;
  /** The run's work; what it returns (counts of what it purged) is not kept. */
  run(ctx: C): Promise<unknown>;
}): RecurringJob<K, C> {
  const { kind, uniqueKey, everyMs } = definition;
  const job: RecurringJob<K, C> = {
    kind,
    payload: NoPayload,
    uniqueKey,
    everyMs,
    async run(ctx: C): Promise<void> {
      await definition.run(ctx);
      await enqueueJob(ctx.pool, job, {}, { runAt: new Date(ctx.clock.now().getTime() + everyMs), uniqueKey });
    },
  };
  // Registers this very object: enqueueJob refuses a definition that is not the one registered for its kind.
  defineJob(job);
  return job;
}

/** Seeds each recurring job once; a pending one keeps its schedule. */
export async function seedRecurringJobs(db: Queryable, jobs: ReadonlyArray<RecurringJob<string, never>>): Promise<void> {
  for (const job of jobs) await enqueueJob(db, job, {}, { uniqueKey: job.uniqueKey, keepExisting: true });
}
