import { AppError } from '../errors.js';
import { workerPool } from './shared-pool.js';
import { WorkerTaskError, type WorkerTask } from './worker-pool.js';

/** Retry-After of a task stopped at its time limit: the machine is loaded, a later try may finish. */
const TIMEOUT_RETRY_AFTER_SECONDS = 5;

const NO_BYTES = new Uint8Array(0);

/**
 * Runs, on the process's worker pool, work that a request needs and whose
 * cost the service's own data decides (a report PDF, a test's statistics),
 * not an upload: the caller reads the database on the event loop and hands
 * the thread JSON arguments, so nothing is sent as bytes.
 *
 * What the person waiting is told:
 * - a full pool: `503 unavailable` with Retry-After, at once (the pool's own refusal);
 * - a task stopped at its time limit: `503 unavailable` with Retry-After too,
 *   since the load, not the request, is at fault, and nothing was changed;
 * - a thread that died (out of memory, a crash): the error as it is, a 500
 *   whose cause is logged. Nothing is lost either way: these tasks only read.
 */
export async function runForRequest<A, R>(task: WorkerTask<A, R>, args: A): Promise<R> {
  try {
    return await workerPool().run(task, NO_BYTES, args);
  } catch (err) {
    if (err instanceof WorkerTaskError && err.reason === 'timeout') {
      throw Object.assign(new AppError('unavailable', 'The server is too busy to finish this now. Retry after the time in Retry-After.', undefined, { 'Retry-After': String(TIMEOUT_RETRY_AFTER_SECONDS) }), { cause: err });
    }
    throw err;
  }
}

/** The Retry-After of a 503 `unavailable` (a full pool, a task past its time), or null for any other error. */
export function unavailableRetryAfter(err: unknown): string | null {
  if (!(err instanceof AppError) || err.code !== 'unavailable') return null;
  return err.headers?.['Retry-After'] ?? '5';
}
