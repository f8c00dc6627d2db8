import fs from 'node:fs';
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { POOL_THREAD_NICE } from './protocol.js';
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
function lowerThisThread(): void {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    os.setPriority(tid, Math.min(19, os.getPriority(tid) + POOL_THREAD_NICE));
  } catch {
    // No /proc/thread-self (not Linux), or the system refuses: the thread keeps the process's priority.
  }
}
lowerThisThread();

serveTasks(
  (handle) => parentPort!.on('message', handle),
  (reply) => parentPort!.postMessage(reply),
);
