import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { ownThreadId } from './cpu-time.js';
import { POOL_THREAD_NICE, type ThreadHello } from './protocol.js';
import { serveTasks } from './serve-tasks.js';

/**
 * A pool thread (isolation `thread`). It lowers its own scheduling priority,
 * as the byte thread does (byte-thread.ts): on a machine whose cores are all
 * busy, a parse, a PDF or a roll-up then waits for the event loop, which
 * answers everyone's requests, instead of taking its core; on an idle core
 * it runs at full speed (docs/performance.md, "Test import", has the
 * measurements). Linux only: a thread there has an id of its own, whose
 * priority is its own; elsewhere the thread runs as before. V8's helper
 * threads, which collect this thread's garbage too, keep the process's
 * priority: isolation `process` (process-main.ts) lowers those as well.
 */
function lowerThisThread(tid: number | null): void {
  if (tid === null) return; // No /proc/thread-self (not Linux): the thread keeps the process's priority.
  try {
    os.setPriority(tid, Math.min(19, os.getPriority(tid) + POOL_THREAD_NICE));
  } catch {
    // The system refuses: the thread keeps the process's priority.
  }
}
const tid = ownThreadId();
lowerThisThread(tid);
// The pool reads this thread's CPU time by its id: its time limit counts the time the thread ran (worker-pool.ts).
if (tid !== null) parentPort!.postMessage({ hello: true, tid } satisfies ThreadHello);

serveTasks(
  (handle) => parentPort!.on('message', handle),
  (reply) => parentPort!.postMessage(reply),
);
