import { Worker } from 'node:worker_threads';
import { AppError } from '../errors.js';
import { cpuMsOf, threadStatPath } from './cpu-time.js';
import type { TaskReply, TaskRequest, ThreadHello } from './protocol.js';
import { startProcess, type PoolRunner, type RunnerEvents } from './process-runner.js';
import { threadModule, type ThreadModule } from './task-module.js';

/**
 * A bounded pool of worker threads for work whose cost the user controls
 * (parsing an uploaded package, sanitising an SVG, drawing a report PDF,
 * computing and rendering a test's statistics): the event loop that every
 * tenant shares only hands bytes or JSON over and gets JSON back
 * (docs/import-export.md "The worker pool").
 *
 * - `threads` threads, started on first use and kept; an idle one does not
 *   keep the process alive.
 * - At most `queueLimit` tasks wait for a thread; one more is refused with
 *   503 `unavailable` and Retry-After, at once: a full pool never makes a
 *   request wait unbounded, nor piles work up in memory.
 * - A task that has run its time limit (CPU time, WALL_LIMIT_FACTOR below)
 *   has its thread terminated (the only way to stop synchronous code) and
 *   fails with WorkerTaskError 'timeout';
 *   a thread over its heap limit (`memoryMb`, V8's resourceLimits) dies alone
 *   ('out_of_memory'), never the process. A thread that dies is replaced
 *   when the next task needs one.
 * - In: one byte array, moved to the thread (the caller's copy is left
 *   alone), and JSON arguments. Out: what the task function returns, by
 *   structured clone (JSON values and byte arrays).
 */
export interface WorkerPoolOptions {
  threads: number;
  queueLimit: number;
  /** A task's default time limit: the CPU time it may run (neither the wait in the queue nor for a core is counted). */
  taskTimeoutMs: number;
  /** Each thread's old-generation heap limit. */
  memoryMb: number;
  /**
   * Where tasks run: threads of this process (the default), or child
   * processes, whose garbage collection and compiling also run below the
   * event loop (process-main.ts).
   */
  isolation?: 'thread' | 'process';
  /** The whole environment a pool process starts with (config.ts chooses it: never the secrets); none by default. */
  processEnv?: Readonly<Record<string, string>>;
}

/** A function `name` exported by the module at `module`, run on a pool thread as `fn(input, args)`. */
export interface WorkerTask<A, R> {
  module: URL;
  name: string;
  /** Phantom: ties the arguments and result types to the task. */
  readonly __types?: (args: A) => R;
}

/**
 * Declares a task. `module` is named as the built code names it
 * (`new URL('./x-task.js', import.meta.url)`); the pool finds the `.ts`
 * source when there is no build.
 */
export function defineWorkerTask<A, R>(module: URL, name: string): WorkerTask<A, R> {
  return { module, name };
}

export type WorkerFailure = 'timeout' | 'out_of_memory' | 'crashed';

/** A task that did not finish: over its time limit, over the heap limit, or its thread died. */
export class WorkerTaskError extends Error {
  constructor(
    readonly reason: WorkerFailure,
    message: string,
  ) {
    super(message);
    this.name = 'WorkerTaskError';
  }
}

export interface WorkerPool {
  run<A, R>(task: WorkerTask<A, R>, input: Uint8Array, args: A, opts?: { timeoutMs?: number }): Promise<R>;
  /** Threads started, busy, and tasks waiting. */
  stats(): { threads: number; busy: number; queued: number };
  /** Refuses new tasks, fails waiting and running ones (503), and stops every thread. */
  close(): Promise<void>;
}

/**
 * A task's time limit counts the CPU time its thread (or process) ran, not the wall clock: a pool thread
 * runs below the event loop, so on a busy machine it waits for a core, and a file refused for the
 * machine's load would be refused for nothing. The wall clock still bounds a task, at this many times its
 * limit, so that one blocked without running (or starved for good) ends too.
 */
const WALL_LIMIT_FACTOR = 4;
/** The least wait before the limit is looked at again (/proc counts CPU time in 10 ms ticks). */
const MIN_RECHECK_MS = 50;

/** Retry-After of a full pool: a few tasks' time, not a whole time limit. */
const FULL_RETRY_AFTER_SECONDS = 5;

// An eval'd script, so no bootstrap file has to be copied next to the built code; written to run as CommonJS
// or as a module (a process started with --input-type=module evals as a module), so it uses import(), not
// require. It registers tsx when the thread must load TypeScript, then runs the thread's loop (thread-main).
const BOOTSTRAP = `
import('node:worker_threads').then(async ({ workerData }) => {
  if (workerData.tsxApi) (await import(workerData.tsxApi)).register();
  await import(workerData.main);
});
`;

/** A pool thread, as a runner: the input's bytes are moved to it. */
function startThread(main: ThreadModule, limits: { memoryMb: number; youngMb: number }, events: RunnerEvents): PoolRunner {
  const worker = new Worker(BOOTSTRAP, {
    eval: true,
    workerData: { main: main.url, tsxApi: main.tsxApi },
    resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb, maxYoungGenerationSizeMb: limits.youngMb, stackSizeMb: 4 },
  });
  let statPath: string | null = null;
  worker.on('message', (message: TaskReply | ThreadHello) => {
    if ('hello' in message) statPath = threadStatPath(message.tid);
    else events.reply(message);
  });
  worker.on('error', (err: Error & { code?: string }) => events.failed(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'out_of_memory' : 'crashed', err));
  worker.on('exit', () => events.exited());
  return {
    send: (request) => worker.postMessage(request, [request.input.buffer as ArrayBuffer]),
    terminate: () => void worker.terminate(),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
    cpuMs: () => (statPath === null ? null : cpuMsOf(statPath)),
  };
}

interface Job {
  id: number;
  module: ThreadModule;
  name: string;
  input: Uint8Array;
  args: unknown;
  timeoutMs: number;
  resolve(value: unknown): void;
  reject(err: Error): void;
}

interface Slot {
  runner: PoolRunner;
  job: Job | null;
  timer: NodeJS.Timeout | null;
  /** Why the thread is ending, when the pool ended it or it reported an error. */
  ending: WorkerFailure | null;
  /** The error the thread died of, for the log (never for the client). */
  error: Error | null;
  /** Settles once the thread or process has ended. */
  gone: Promise<void>;
  exited(): void;
}

const busy = () => new AppError('unavailable', 'The server is busy with other work (uploads, reports, statistics). Retry after the time in Retry-After.', undefined, { 'Retry-After': String(FULL_RETRY_AFTER_SECONDS) });
const closing = () => new AppError('unavailable', 'The service is restarting. Retry shortly.', undefined, { 'Retry-After': '1' });

export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const threadMain = threadModule(new URL('./thread-main.js', import.meta.url));
  const processMain = threadModule(new URL('./process-main.js', import.meta.url));
  const slots = new Set<Slot>();
  const queue: Job[] = [];
  let nextId = 1;
  let closed = false;

  function spawn(): Slot {
    let exited = () => undefined as void;
    const gone = new Promise<void>((resolve) => (exited = resolve));
    const slot: Slot = { runner: null as unknown as PoolRunner, job: null, timer: null, ending: null, error: null, gone, exited };
    slots.add(slot);
    const events: RunnerEvents = {
      reply(reply) {
        const job = slot.job;
        if (!job || reply.id !== job.id) return;
        finish(slot);
        if (reply.ok) job.resolve(reply.value);
        else if (reply.appError) job.reject(new AppError(reply.appError.code, reply.appError.message, reply.appError.details, reply.appError.headers));
        else job.reject(new Error(`worker task ${job.name} failed: ${reply.message}`));
        dispatch();
      },
      failed(reason, err) {
        slot.ending ??= reason;
        slot.error ??= err;
      },
      exited() {
        slots.delete(slot);
        const job = slot.job;
        finish(slot);
        if (job) {
          if (closed) job.reject(closing());
          else if (slot.ending === 'timeout') job.reject(new WorkerTaskError('timeout', `worker task ${job.name} ran past its ${job.timeoutMs} ms limit and was stopped`));
          else if (slot.ending === 'out_of_memory') job.reject(new WorkerTaskError('out_of_memory', `worker task ${job.name} went past the ${options.memoryMb} MB heap limit`));
          else job.reject(new WorkerTaskError('crashed', `the ${options.isolation ?? 'thread'} running worker task ${job.name} exited${slot.error ? `: ${slot.error.message}` : ''}`));
        }
        slot.exited();
        // Its replacement starts when a waiting task needs it.
        dispatch();
      },
    };
    const youngMb = Math.min(64, Math.max(8, Math.floor(options.memoryMb / 8)));
    slot.runner = options.isolation === 'process' ? startProcess(processMain, { memoryMb: options.memoryMb, youngMb, env: options.processEnv ?? {} }, events) : startThread(threadMain, { memoryMb: options.memoryMb, youngMb }, events);
    slot.runner.unref();
    return slot;
  }

  function finish(slot: Slot) {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.job = null;
    // Idle: the thread no longer keeps the process alive (a CLI run ends when its work does).
    slot.runner.unref();
  }

  /**
   * Stops the task once it has run `timeoutMs` of CPU time, or after WALL_LIMIT_FACTOR times that on the
   * wall clock, whichever comes first; the wall clock alone where the runner's CPU time cannot be read.
   */
  function armTimeLimit(slot: Slot, timeoutMs: number) {
    const cpuAtStart = slot.runner.cpuMs();
    const startedAt = performance.now();
    const check = () => {
      const wallMs = performance.now() - startedAt;
      const cpuNow = slot.runner.cpuMs();
      // A thread started for this task names itself after the task began: then all of its time is counted.
      const ranMs = cpuNow === null ? wallMs : cpuNow - (cpuAtStart ?? 0);
      // A task cannot run more CPU time than the wall clock passes: the next look comes when its budget could be spent.
      const leftMs = Math.min(timeoutMs - ranMs, timeoutMs * WALL_LIMIT_FACTOR - wallMs);
      if (leftMs > 0) {
        slot.timer = setTimeout(check, Math.max(leftMs, MIN_RECHECK_MS));
        return;
      }
      slot.ending = 'timeout';
      slot.runner.terminate();
    };
    slot.timer = setTimeout(check, timeoutMs);
  }

  function dispatch() {
    while (!closed && queue.length > 0) {
      let slot = [...slots].find((s) => s.job === null && s.ending === null);
      if (!slot) {
        if (slots.size >= options.threads) return;
        slot = spawn();
      }
      const job = queue.shift()!;
      slot.job = job;
      // While a task runs, the thread keeps the process alive: the caller is waiting for its answer.
      slot.runner.ref();
      armTimeLimit(slot, job.timeoutMs);
      const request: TaskRequest = { id: job.id, module: job.module.url, name: job.name, input: job.input, args: job.args };
      slot.runner.send(request);
    }
  }

  return {
    run<A, R>(task: WorkerTask<A, R>, input: Uint8Array, args: A, opts: { timeoutMs?: number } = {}): Promise<R> {
      if (closed) return Promise.reject(closing());
      const waiting = queue.length + [...slots].filter((s) => s.job !== null).length;
      if (waiting >= options.threads + options.queueLimit) return Promise.reject(busy());
      const module = threadModule(task.module);
      return new Promise<R>((resolve, reject) => {
        // A copy the thread owns: moving the caller's own buffer would empty it under the caller (and a
        // Buffer may share its ArrayBuffer with others).
        queue.push({ id: nextId++, module, name: task.name, input: new Uint8Array(input), args, timeoutMs: opts.timeoutMs ?? options.taskTimeoutMs, resolve: resolve as (v: unknown) => void, reject });
        dispatch();
      });
    },
    stats() {
      return { threads: slots.size, busy: [...slots].filter((s) => s.job !== null).length, queued: queue.length };
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(closing());
      await Promise.all(
        [...slots].map((s) => {
          s.runner.terminate();
          return s.gone;
        }),
      );
    },
  };
}
