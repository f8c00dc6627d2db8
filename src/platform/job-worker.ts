import os from 'node:os';
import type { Clock } from './clock.js';
import type { Pool } from './db.js';
import { randomBase62 } from './ids.js';
import { createNotificationListener } from './listener.js';
import { assertDefinition, JOBS_CHANNEL, JobPayloadError, payloadProblem, type AnyJobDefinition, type BatchFailures, type JobInfo } from './jobs.js';

/**
 * The worker side of the job queue (platform/jobs.ts declares the kinds and
 * enqueues): claims due rows of its own kinds under a lease, runs them (a
 * batch kind's jobs together), and records each outcome.
 */
/** A claimed row, payload as stored (unchecked). */
interface ClaimedJob extends JobInfo {
  payload: unknown;
  max_attempts: number;
}

export interface WorkerOptions<C> {
  pool: Pool;
  connectionString: string;
  clock: Clock;
  /** The kinds this worker claims, and the context their runs receive. */
  jobs: ReadonlyArray<AnyJobDefinition<C>>;
  context: C;
  concurrency?: number;
  pollIntervalMs?: number;
  leaseMs?: number;
  log?: { info(o: object, m?: string): void; error(o: object, m?: string): void; warn(o: object, m?: string): void };
}

/** Retry delay after the n-th failed attempt: 1 s, 2 s, 4 s … capped at 10 minutes. */
export function jobBackoffMs(attempts: number): number {
  return Math.min(600_000, 1000 * 2 ** Math.max(0, attempts - 1));
}

export function createJobWorker<C>(opts: WorkerOptions<C>) {
  const workerId = `${os.hostname()}:${process.pid}:${randomBase62(6)}`;
  const concurrency = opts.concurrency ?? 4;
  const pollMs = opts.pollIntervalMs ?? 500;
  const leaseMs = opts.leaseMs ?? 60_000;
  const byKind = new Map<string, AnyJobDefinition<C>>();
  for (const definition of opts.jobs) {
    assertDefinition(definition);
    if (byKind.has(definition.kind)) throw new Error(`job kind ${definition.kind} is listed twice`);
    byKind.set(definition.kind, definition);
  }
  const kinds = [...byKind.keys()];
  let running = 0;
  let stopped = true;
  const listener = createNotificationListener({
    connection: { connectionString: opts.connectionString },
    channel: JOBS_CHANNEL,
    // The payload is the kind enqueued: a worker wakes for its own kinds only (another process's kinds cost it no
    // claim statement). A notification without one (a reconnect, or older code) wakes it to look.
    onNotify: (kind) => {
      if (!kind || byKind.has(kind)) wake();
    },
    log: opts.log,
  });
  let timer: NodeJS.Timeout | null = null;
  let cycle: Promise<void> | null = null;
  const inFlight = new Set<Promise<void>>();

  /**
   * Up to n due jobs of this worker's kinds, oldest first: each kind is
   * looked up in the claim index (kind, run_at, id), so jobs of other kinds
   * due in thousands cost nothing. A kind's rows locked but not taken (more
   * than n due across kinds) are free again when the statement ends.
   */
  async function claim(n: number): Promise<ClaimedJob[]> {
    const now = opts.clock.now();
    const { rows } = await opts.pool.query(
      `UPDATE jobs SET locked_until = $2::timestamptz + make_interval(secs => $3::double precision / 1000),
                       locked_by = $4, attempts = attempts + 1
        WHERE id IN (SELECT due.id FROM unnest($5::text[]) AS k(kind)
                      CROSS JOIN LATERAL (
                        SELECT id, run_at FROM jobs
                         WHERE jobs.kind = k.kind AND failed_at IS NULL AND run_at <= $2 AND (locked_until IS NULL OR locked_until < $2)
                         ORDER BY run_at, id LIMIT $1 FOR UPDATE SKIP LOCKED) due
                      ORDER BY due.run_at, due.id LIMIT $1)
        RETURNING id, kind, payload, attempts, max_attempts`,
      [n, now, leaseMs, workerId, kinds],
    );
    return rows;
  }

  /** Up to n more due jobs of one kind, for a batch (the claim index on kind and run time finds them). */
  async function claimOfKind(kind: string, n: number): Promise<ClaimedJob[]> {
    if (n <= 0) return [];
    const now = opts.clock.now();
    const { rows } = await opts.pool.query(
      `UPDATE jobs SET locked_until = $2::timestamptz + make_interval(secs => $3::double precision / 1000),
                       locked_by = $4, attempts = attempts + 1
        WHERE id IN (SELECT id FROM jobs
                      WHERE kind = $5 AND failed_at IS NULL AND run_at <= $2 AND (locked_until IS NULL OR locked_until < $2)
                      ORDER BY run_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING id, kind, payload, attempts, max_attempts`,
      [n, now, leaseMs, workerId, kind],
    );
    return rows;
  }

  /**
   * The claimed jobs as runs: one per job, except that jobs of a batch kind
   * are topped up with more due jobs of their kind and split into batches.
   */
  async function asRuns(claimed: ClaimedJob[]): Promise<ClaimedJob[][]> {
    const runs: ClaimedJob[][] = [];
    const batched = new Map<string, ClaimedJob[]>();
    for (const job of claimed) {
      const size = byKind.get(job.kind)?.batchSize ?? 1;
      if (size <= 1) runs.push([job]);
      else batched.set(job.kind, [...(batched.get(job.kind) ?? []), job]);
    }
    for (const [kind, jobs] of batched) {
      const size = byKind.get(kind)!.batchSize!;
      const all = [...jobs, ...(await claimOfKind(kind, jobs.length * size - jobs.length))];
      for (let i = 0; i < all.length; i += size) runs.push(all.slice(i, i + size));
    }
    return runs;
  }

  /** Records the outcome. `permanent`: no retry will mend it (a malformed payload), so the job is left failed at once. */
  async function finish(job: ClaimedJob, error: unknown, permanent = false): Promise<void> {
    if (!error) {
      // Only delete if we still hold it: a job whose lease ran out may have been taken over.
      await opts.pool.query('DELETE FROM jobs WHERE id = $1 AND locked_by = $2', [job.id, workerId]);
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    const exhausted = permanent || job.attempts >= job.max_attempts;
    opts.log?.[exhausted ? 'error' : 'warn']({ jobId: job.id, kind: job.kind, attempts: job.attempts, err: message }, 'job failed');
    const retryAt = new Date(opts.clock.now().getTime() + jobBackoffMs(job.attempts));
    await opts.pool.query(
      `UPDATE jobs SET locked_until = NULL, locked_by = NULL, last_error = $2, run_at = $3,
                       failed_at = CASE WHEN $4 THEN $3::timestamptz ELSE NULL END
        WHERE id = $1 AND locked_by = $5`,
      [job.id, message.slice(0, 2000), retryAt, exhausted, workerId],
    );
  }

  /** Deletes the jobs of a batch that succeeded, in one statement, if we still hold them. */
  async function finishAll(jobs: ClaimedJob[]): Promise<void> {
    if (jobs.length === 0) return;
    await opts.pool.query('DELETE FROM jobs WHERE id = ANY($1::bigint[]) AND locked_by = $2', [jobs.map((j) => j.id), workerId]);
  }

  const recordFailure = (jobId: number) => (err: unknown) => opts.log?.error({ err, jobId }, 'could not record job outcome');

  /** Runs one claimed job, or a batch of one kind, in one slot. */
  function runJob(claimed: ClaimedJob | ClaimedJob[]): Promise<void> {
    const jobs = Array.isArray(claimed) ? claimed : [claimed];
    running++;
    const definition = byKind.get(jobs[0]!.kind)!;
    const p = (async () => {
      const valid: ClaimedJob[] = [];
      for (const job of jobs) {
        const problem = payloadProblem(job.kind, job.payload);
        if (problem) await finish(job, new JobPayloadError(problem), true).catch(recordFailure(job.id));
        else valid.push(job);
      }
      if (valid.length === 0) return;
      const info = (job: ClaimedJob): JobInfo => ({ id: job.id, kind: job.kind, attempts: job.attempts });
      let failures: BatchFailures;
      try {
        if (definition.runBatch) {
          failures = (await definition.runBatch(opts.context, valid.map((job) => ({ payload: job.payload, job: info(job) })))) ?? new Map();
        } else {
          await definition.run(opts.context, valid[0]!.payload, info(valid[0]!));
          failures = new Map();
        }
      } catch (err) {
        failures = new Map(valid.map((job) => [job.id, err ?? new Error('job failed')]));
      }
      await finishAll(valid.filter((job) => !failures.has(job.id))).catch(recordFailure(valid[0]!.id));
      for (const job of valid) {
        if (failures.has(job.id)) await finish(job, failures.get(job.id) ?? new Error('job failed')).catch(recordFailure(job.id));
      }
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
    const runs = await asRuns(await claim(free));
    for (const run of runs) void runJob(run);
    return runs.length;
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
        const runs = await asRuns(await claim(concurrency));
        if (runs.length === 0) return total;
        total += runs.reduce((n, run) => n + run.length, 0);
        await Promise.all(runs.map((run) => runJob(run)));
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
