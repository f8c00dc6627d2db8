import fs from 'node:fs';
import os from 'node:os';
import { POOL_THREAD_NICE, type TaskReply, type TaskRequest } from './protocol.js';
import { serveTasks } from './serve-tasks.js';

/**
 * A pool process (isolation `process`, process-runner.ts). It lowers the
 * priority of every thread it has when it starts: its main thread, which
 * runs the tasks, and V8's helper threads, which collect its garbage and
 * compile its code in the background (threads started later inherit it).
 * A pool thread can lower only itself: the helpers it shares with the API's
 * event loop collect its garbage at the loop's priority, and a parse's
 * garbage is most of what they collect (docs/performance.md, "Test
 * import"). Linux only (/proc/self/task); elsewhere the process keeps the
 * priority it was started with.
 */
function lowerThisProcess(): void {
  let tids: string[];
  try {
    tids = fs.readdirSync('/proc/self/task');
  } catch {
    return;
  }
  for (const tid of tids) {
    try {
      os.setPriority(Number(tid), Math.min(19, os.getPriority(Number(tid)) + POOL_THREAD_NICE));
    } catch {
      // A thread that ended meanwhile, or a system that refuses: it keeps its priority.
    }
  }
}
lowerThisProcess();

if (!process.send) throw new Error('process-main.ts runs as a worker pool process, started with an IPC channel');
serveTasks(
  (handle) => process.on('message', (task) => handle(task as TaskRequest)),
  (reply: TaskReply) => process.send!(reply),
);
// The pool that started this process is gone (closed, or its process died): nothing more will come.
process.on('disconnect', () => process.exit(0));
