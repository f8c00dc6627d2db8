import { AppError } from '../errors.js';
import type { TaskReply, TaskRequest } from './protocol.js';

/**
 * The loop of one pool thread or process: a task names a module and one of
 * its exported functions, called with the bytes and the JSON arguments; its
 * result (JSON values and byte arrays) goes back by structured clone. An
 * AppError crosses as its code, message, details and headers, so the caller
 * answers it as if thrown at home; anything else crosses as a message only
 * (a 500 there). The pool sends one task at a time to each.
 */
export function serveTasks(receive: (handle: (task: TaskRequest) => void) => void, send: (reply: TaskReply) => void): void {
  const modules = new Map<string, Promise<Record<string, unknown>>>();
  const load = (url: string): Promise<Record<string, unknown>> => {
    let mod = modules.get(url);
    if (!mod) {
      mod = import(url) as Promise<Record<string, unknown>>;
      modules.set(url, mod);
    }
    return mod;
  };
  receive(async (task) => {
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
    send(reply);
  });
}
