import os from 'node:os';
import type { Clock } from './clock.js';
import type { Pool, Queryable } from './db.js';
import { randomBase62 } from './ids.js';
import { createNotificationListener } from './listener.js';

/**
 * Durable background work in PostgreSQL (expiry at dueAt, auto-submit at the
 * deadline, purges). A job row is written in the same transaction as the
 * change that needs it. Workers claim due rows with FOR UPDATE SKIP LOCKED
 * under a lease (`locked_until`): a worker killed mid-job loses its lease and
 * another worker runs the job again, so handlers must be idempotent.
 * NOTIFY on `assay_jobs` wakes idle workers at once; a short poll covers
 * scheduled jobs and missed notifications (e.g. across a database restart).
 *
 * Why not graphile-worker: its recovery of jobs held by a crashed worker
 * waits for a 4-hour lock timeout, and we want crash recovery in seconds,
 * run times from an injectable clock, and attempt bookkeeping we can query.
 */
export const JOBS_CHANNEL = 'assay_jobs';

export interface EnqueueOptions {
  runAt?: Date;
  /** At most one pending job per key; enqueuing again moves its run time (and releases it if it is running, so the new run is kept). */
  uniqueKey?: string;
  maxAttempts?: number;
}

export async function enqueueJob(db: Queryable, kind: string, payload: object, opts: EnqueueOptions = {}): Promise<void> {
  await db.query(
    `INSERT INTO jobs (kind, payload, run_at, max_attempts, unique_key)
     VALUES ($1, $2, COALESCE($3, now()), $4, $5)
     ON CONFLICT (unique_key) DO UPDATE SET run_at = EXCLUDED.run_at, payload = EXCLUDED.payload,
       attempts = 0, failed_at = NULL, last_error = NULL, locked_until = NULL, locked_by = NULL`,
    [kind, JSON.stringify(payload), opts.runAt ?? null, opts.maxAttempts ?? 25, opts.uniqueKey ?? null],
  );
  // Delivered on commit only; a rolled-back transaction wakes nobody.
  await db.query('SELECT pg_notify($1, $2)', [JOBS_CHANNEL, kind]);
}

export async function cancelJob(db: Queryable, uniqueKey: string): Promise<void> {
  await db.query('DELETE FROM jobs WHERE unique_key = $1', [uniqueKey]);
}

export interface Job {
  id: number;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
}

export type JobHandler = (job: Job) => Promise<void>;

export interface WorkerOptions {
  pool: Pool;
  connectionString: string;
  clock: Clock;
  handlers: Record<string, JobHandler>;
  concurrency?: number;
  pollIntervalMs?: number;
  leaseMs?: number;
  log?: { info(o: object, m?: string): void; error(o: object, m?: string): void; warn(o: object, m?: string): void };
}

/** Retry delay after the n-th failed attempt: 1 s, 2 s, 4 s … capped at 10 minutes. */
export function jobBackoffMs(attempts: number): number {
  return Math.min(600_000, 1000 * 2 ** Math.max(0, attempts - 1));
}

export function createJobWorker(opts: WorkerOptions) {
  const workerId = `${os.hostname()}:${process.pid}:${randomBase62(6)}`;
  const concurrency = opts.concurrency ?? 4;
  const pollMs = opts.pollIntervalMs ?? 500;
  const leaseMs = opts.leaseMs ?? 60_000;
  const kinds = Object.keys(opts.handlers);
  let running = 0;
  let stopped = true;
  const listener = createNotificationListener({
    connection: { connectionString: opts.connectionString },
    channel: JOBS_CHANNEL,
    onNotify: () => wake(),
    log: opts.log,
  });
  let timer: NodeJS.Timeout | null = null;
  let cycle: Promise<void> | null = null;
  const inFlight = new Set<Promise<void>>();

  async function claim(n: number): Promise<Job[]> {
    const now = opts.clock.now();
    const { rows } = await opts.pool.query(
      `UPDATE jobs SET locked_until = $2::timestamptz + make_interval(secs => $3::double precision / 1000),
                       locked_by = $4, attempts = attempts + 1
        WHERE id IN (SELECT id FROM jobs
                      WHERE failed_at IS NULL AND run_at <= $2 AND (locked_until IS NULL OR locked_until < $2)
                        AND kind = ANY($5)
                      ORDER BY run_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING id, kind, payload, attempts, max_attempts`,
      [n, now, leaseMs, workerId, kinds],
    );
    return rows;
  }

  async function finish(job: Job & { max_attempts?: number }, error: unknown): Promise<void> {
    if (!error) {
      // Only delete if we still hold it: a job whose lease ran out may have been taken over.
      await opts.pool.query('DELETE FROM jobs WHERE id = $1 AND locked_by = $2', [job.id, workerId]);
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    const exhausted = job.attempts >= (job.max_attempts ?? 25);
    opts.log?.[exhausted ? 'error' : 'warn']({ jobId: job.id, kind: job.kind, attempts: job.attempts, err: message }, 'job failed');
    const retryAt = new Date(opts.clock.now().getTime() + jobBackoffMs(job.attempts));
    await opts.pool.query(
      `UPDATE jobs SET locked_until = NULL, locked_by = NULL, last_error = $2, run_at = $3,
                       failed_at = CASE WHEN $4 THEN $3::timestamptz ELSE NULL END
        WHERE id = $1 AND locked_by = $5`,
      [job.id, message.slice(0, 2000), retryAt, exhausted, workerId],
    );
  }

  function runJob(job: Job & { max_attempts?: number }): Promise<void> {
    running++;
    const handler = opts.handlers[job.kind]!;
    const p = (async () => {
      let error: unknown = null;
      try {
        await handler(job);
      } catch (err) {
        error = err ?? new Error('job failed');
      }
      await finish(job, error).catch((err) => opts.log?.error({ err, jobId: job.id }, 'could not record job outcome'));
    })().finally(() => {
      running--;
      inFlight.delete(p);
      if (!stopped) wake();
    });
    inFlight.add(p);
    return p;
  }

  /** Claims and starts as many due jobs as there are free slots. Returns how many it started. */
  async function tick(): Promise<number> {
    const free = concurrency - running;
    if (free <= 0) return 0;
    const jobs = await claim(free);
    for (const job of jobs) void runJob(job);
    return jobs.length;
  }

  function wake(): void {
    if (stopped || cycle) return;
    cycle = (async () => {
      try {
        while (!stopped && (await tick()) > 0 && running < concurrency) {
          /* keep claiming while there is work and room */
        }
      } catch (err) {
        opts.log?.warn({ err: (err as Error).message }, 'job claim failed; will retry');
      } finally {
        cycle = null;
      }
    })();
  }

  return {
    workerId,
    async start(): Promise<void> {
      stopped = false;
      await listener.start();
      timer = setInterval(wake, pollMs);
      wake();
    },
    /** Runs every job due now (by the injected clock) to completion; for tests and CLI use. */
    async drain(): Promise<number> {
      let total = 0;
      for (;;) {
        const jobs = await claim(concurrency);
        if (jobs.length === 0) return total;
        total += jobs.length;
        await Promise.all(jobs.map((j) => runJob(j)));
      }
    },
    /** Stops claiming and waits for running jobs to finish. */
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
      await cycle;
      await Promise.all([...inFlight]);
      await listener.stop();
    },
  };
}

export type JobWorker = ReturnType<typeof createJobWorker>;
