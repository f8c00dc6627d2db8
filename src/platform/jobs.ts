import os from 'node:os';
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
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
 * Each kind is declared once with defineJob (name, payload schema, run); a
 * worker is built from a list of definitions and claims only those kinds.
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
  /** With uniqueKey: leave a pending job of that key as it is (seeding a recurring job keeps its schedule). */
  keepExisting?: boolean;
  maxAttempts?: number;
}

/** What a job's run receives besides its payload. */
export interface JobInfo {
  id: number;
  kind: string;
  attempts: number;
}

/**
 * One kind of background job, as its callers see it: its name and the schema
 * of its payload. A declaration imports nothing of what running the job
 * needs, so a module can enqueue a job whose handler lives in a module above
 * it (the deadline job is declared by attempts and run by marking's
 * submission) without importing that module. The payload is checked against
 * the schema when it is enqueued (a wrong payload is a bug in the caller,
 * refused before it is written) and again when a worker claims it (a row
 * written by older code or by hand fails with the reason, it never reaches
 * the handler), so the handler gets the typed payload and nothing else.
 */
export interface JobDeclaration<K extends string = string, S extends TSchema = TSchema> {
  readonly kind: K;
  readonly payload: S;
  /** Attempts before the job is left failed; enqueue options can override it. 25 by default. */
  readonly maxAttempts?: number;
}

/** A declaration with the function that runs it with the worker's context: what a worker is built from. */
export interface JobDefinition<K extends string = string, S extends TSchema = TSchema, C = never> extends JobDeclaration<K, S> {
  run(ctx: C, payload: Static<S>, job: JobInfo): Promise<void>;
  /** A kind run in batches (handleJobBatch): at most this many due jobs of the kind per run. */
  readonly batchSize?: number;
  readonly runBatch?: (ctx: C, items: ReadonlyArray<BatchItem<Static<S>>>) => Promise<BatchFailures | void>;
}

/** One job of a batch: its payload (checked) and its row. */
export interface BatchItem<P> {
  payload: P;
  job: JobInfo;
}

/** The jobs of a batch that failed, by job id, with their errors; the others succeeded. */
export type BatchFailures = ReadonlyMap<number, unknown>;

/** Any definition whose run accepts context C (the worker's). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyJobDefinition<C = any> = JobDefinition<string, any, C>;

/** A payload that does not match its kind's schema, or a kind nobody declared. */
export class JobPayloadError extends Error {
  override name = 'JobPayloadError';
}

const declarations = new Map<string, { declaration: JobDeclaration; check: TypeCheck<TSchema> }>();
/** The declarations and handlers made here: a look-alike object of a declared kind is not one of them. */
const issued = new WeakSet<JobDeclaration>();

/** Declares a job kind. Kinds are unique across the process: two declarations of one kind are refused at load. */
export function declareJob<K extends string, S extends TSchema>(declaration: JobDeclaration<K, S>): JobDeclaration<K, S> {
  if (declarations.has(declaration.kind)) throw new Error(`job kind ${declaration.kind} is defined twice`);
  declarations.set(declaration.kind, { declaration, check: TypeCompiler.Compile(declaration.payload) });
  issued.add(declaration);
  return declaration;
}

/** The handler of a declared kind, registered where the worker that runs it is built. */
export function handleJob<K extends string, S extends TSchema, C>(
  declaration: JobDeclaration<K, S>,
  run: (ctx: C, payload: Static<S>, job: JobInfo) => Promise<void>,
): JobDefinition<K, S, C> {
  if (declarations.get(declaration.kind)?.declaration !== declaration) throw new Error(`job kind ${declaration.kind} is not declared`);
  const definition = Object.freeze({ ...declaration, run });
  issued.add(definition);
  return definition;
}

/**
 * The handler of a declared kind that runs many due jobs at once: a worker
 * slot claims up to `size` due jobs of the kind (one statement), `run` gets
 * them all and answers which failed (by job id; a throw fails them all), and
 * the successes are deleted in one statement. For work that is cheaper per
 * item in bulk (the deadline's auto-submits, the results rollup). Every job
 * keeps its own row, attempts and retries, so a failure retries only its own.
 */
export function handleJobBatch<K extends string, S extends TSchema, C>(
  declaration: JobDeclaration<K, S>,
  batch: { size: number; run: (ctx: C, items: ReadonlyArray<BatchItem<Static<S>>>) => Promise<BatchFailures | void> },
): JobDefinition<K, S, C> {
  if (declarations.get(declaration.kind)?.declaration !== declaration) throw new Error(`job kind ${declaration.kind} is not declared`);
  if (!Number.isInteger(batch.size) || batch.size < 1) throw new Error(`job kind ${declaration.kind}: batch size must be a whole number ≥ 1`);
  const definition: JobDefinition<K, S, C> = Object.freeze({
    ...declaration,
    batchSize: batch.size,
    runBatch: batch.run,
    async run(ctx: C, payload: Static<S>, job: JobInfo) {
      const failed = await batch.run(ctx, [{ payload, job }]);
      if (failed?.has(job.id)) throw failed.get(job.id) ?? new Error('job failed');
    },
  });
  issued.add(definition);
  return definition;
}

/** Declaration and handler in one object, for a job whose handler lives beside its only callers. */
export function defineJob<K extends string, S extends TSchema, C>(definition: JobDefinition<K, S, C>): JobDefinition<K, S, C> {
  declareJob(definition);
  return definition;
}

/** The kinds declared in this process (those whose modules are loaded). */
export function definedJobKinds(): string[] {
  return [...declarations.keys()];
}

function checkerOf(kind: string, job?: JobDeclaration): TypeCheck<TSchema> {
  const entry = declarations.get(kind);
  // A declaration, or a handler made from it; never a copy.
  if (!entry || (job && !(issued.has(job) && entry.declaration.payload === job.payload))) throw new JobPayloadError(`unknown job kind ${JSON.stringify(kind)}`);
  return entry.check;
}

/** Why a payload does not match its kind's schema, or null when it does. */
export function payloadProblem(kind: string, payload: unknown): string | null {
  const check = checkerOf(kind);
  if (check.Check(payload)) return null;
  const errors = [...check.Errors(payload)].slice(0, 3).map((e) => `${e.path || '/'} ${e.message}`);
  return `malformed ${kind} payload: ${errors.length > 0 ? errors.join('; ') : 'does not match its schema'}`;
}

export async function enqueueJob<S extends TSchema>(
  db: Queryable,
  job: JobDeclaration<string, S>,
  payload: Static<S>,
  opts: EnqueueOptions = {},
): Promise<void> {
  checkerOf(job.kind, job);
  const problem = payloadProblem(job.kind, payload);
  if (problem) throw new JobPayloadError(problem);
  const onConflict = opts.keepExisting
    ? 'DO NOTHING'
    : `DO UPDATE SET run_at = EXCLUDED.run_at, payload = EXCLUDED.payload,
       attempts = 0, failed_at = NULL, last_error = NULL, locked_until = NULL, locked_by = NULL`;
  await db.query(
    `INSERT INTO jobs (kind, payload, run_at, max_attempts, unique_key)
     VALUES ($1, $2, COALESCE($3, now()), $4, $5)
     ON CONFLICT (unique_key) ${onConflict}`,
    [job.kind, JSON.stringify(payload), opts.runAt ?? null, opts.maxAttempts ?? job.maxAttempts ?? 25, opts.uniqueKey ?? null],
  );
  // Delivered on commit only; a rolled-back transaction wakes nobody.
  await db.query('SELECT pg_notify($1, $2)', [JOBS_CHANNEL, job.kind]);
}

export async function cancelJob(db: Queryable, uniqueKey: string): Promise<void> {
  await db.query('DELETE FROM jobs WHERE unique_key = $1', [uniqueKey]);
}

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
    checkerOf(definition.kind, definition);
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
