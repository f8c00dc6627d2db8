import os from 'node:os';
import { createWorkerPool, type WorkerPool, type WorkerPoolOptions } from './worker-pool.js';

/**
 * The process's one worker pool. Services that hand work to it (the import's
 * parse) take no context for it: a pool is a property of the process, like
 * its event loop, and callers such as `readImport` keep their signatures.
 * The entry point configures it from Config at boot (buildServer) and closes
 * it on shutdown; a process that never configures it (the CLI, a bench)
 * gets the defaults, the same values as an unset environment.
 */
export const DEFAULT_WORKER_POOL: Readonly<WorkerPoolOptions> = Object.freeze({
  // One core stays with the event loop; at most two threads by default, since parses are short.
  threads: Math.max(1, Math.min(2, os.availableParallelism() - 1)),
  queueLimit: 16,
  taskTimeoutMs: 30_000,
  memoryMb: 512,
  // Child processes, which lower every thread they have, V8's helpers included: with two busy processes
  // beside 500-question imports on two cores, the partner read's p99 was 0.83-1.00 x unloaded with
  // processes against 2.5-6.6 x with threads, whose helpers collect the parse's garbage at the event
  // loop's priority (docs/performance.md, "A busy machine"). An import takes about a tenth longer.
  isolation: 'process',
});

let options: WorkerPoolOptions = { ...DEFAULT_WORKER_POOL };
let pool: WorkerPool | null = null;

/** Sets the pool's options; a pool already running with other options is closed and started afresh on next use. */
export function configureWorkerPool(next: WorkerPoolOptions): void {
  const same = JSON.stringify(next) === JSON.stringify(options);
  options = { ...next };
  if (!same && pool) void closeWorkerPool();
}

export function workerPool(): WorkerPool {
  pool ??= createWorkerPool(options);
  return pool;
}

/** Stops the pool's threads (a later task starts a new pool). */
export async function closeWorkerPool(): Promise<void> {
  const p = pool;
  pool = null;
  await p?.close();
}
