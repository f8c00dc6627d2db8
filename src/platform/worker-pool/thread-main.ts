import fs from 'node:fs';
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { AppError } from '../errors.js';
import { POOL_THREAD_NICE, type TaskReply, type TaskRequest } from './protocol.js';

/**
 * The thread lowers its own scheduling priority, as the byte thread does
 * (byte-thread.ts): on a machine whose cores are all busy, a parse, a PDF or
 * a roll-up then waits for the event loop, which answers everyone's requests,
 * instead of taking its core; on an idle core it runs at full speed
 * (docs/performance.md, "Test import", has the measurements). Linux only: a
 * thread there has an id of its own, whose priority is its own; elsewhere
 * the thread runs as before.
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

/**
 * The loop of one pool thread: a task names a module and one of its
 * exported functions, called with the bytes and the JSON arguments; its
 * result (JSON values and byte arrays) goes back by structured clone. An
 * AppError crosses as its code, message, details and headers, so the caller
 * answers it as if thrown at home; anything else crosses as a message only
 * (a 500 there). The main thread sends one task at a time per thread.
 */
const modules = new Map<string, Promise<Record<string, unknown>>>();

function load(url: string): Promise<Record<string, unknown>> {
  let mod = modules.get(url);
  if (!mod) {
    mod = import(url) as Promise<Record<string, unknown>>;
    modules.set(url, mod);
  }
  return mod;
}

parentPort!.on('message', async (task: TaskRequest) => {
  let reply: TaskReply;
  try {
    const fn = (await load(task.module))[task.name];
    if (typeof fn !== 'function') throw new Error(`${task.module} exports no function ${task.name}`);
    reply = { id: task.id, ok: true, value: await (fn as (input: Uint8Array, args: unknown) => unknown)(task.input, task.args) };
  } catch (err) {
    reply =
      err instanceof AppError
        ? { id: task.id, ok: false, appError: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}), ...(err.headers ? { headers: err.headers } : {}) } }
        : { id: task.id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(reply);
});
