import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { Queryable } from './db.js';

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

/** Refuses a definition that is not one made here (declareJob, handleJob, handleJobBatch, defineJob): a worker runs only those. */
export function assertDefinition(job: JobDeclaration): void {
  checkerOf(job.kind, job);
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
