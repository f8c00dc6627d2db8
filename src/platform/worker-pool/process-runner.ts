import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { cpuMsOf, processStatPath } from './cpu-time.js';
import type { TaskReply, TaskRequest } from './protocol.js';
import type { ThreadModule } from './task-module.js';

/**
 * What runs a pool's tasks one at a time: a worker thread or, with isolation
 * `process`, a child process (docs/import-export.md "The worker pool").
 */
export interface PoolRunner {
  /** One task; its input's bytes are moved (a thread) or copied (a process). */
  send(request: TaskRequest): void;
  /** Stops it now (the only way to stop synchronous code); `exited` follows. */
  terminate(): void;
  /** Whether it keeps this process alive: while a task runs, yes; idle, no. */
  ref(): void;
  unref(): void;
  /** The CPU time it has run so far (ms; a process: all of its threads), or null where that cannot be read. */
  cpuMs(): number | null;
}

export interface RunnerEvents {
  reply(reply: TaskReply): void;
  /** It is dying of `reason`: its heap limit, or anything else. */
  failed(reason: 'out_of_memory' | 'crashed', err: Error): void;
  /** It has ended, for whatever reason. */
  exited(): void;
}

/** V8's last words when a heap limit stops a process (then it aborts). */
const OUT_OF_MEMORY = /JavaScript heap out of memory|Reached heap limit/;

// An eval'd module, so no bootstrap file has to be copied next to the built code: it registers tsx when the
// process must load TypeScript, then runs the process's loop (process-main).
const BOOTSTRAP = `
const [main, tsxApi] = process.argv.slice(1);
if (tsxApi) (await import(tsxApi)).register();
await import(main);
`;

/**
 * A pool process: Node started afresh with the pool's heap limits and only
 * the environment `env` (config.ts passes what a task may see: never the
 * database's address nor a secret), talking over an IPC channel with V8's
 * structured clone. Its standard error goes to ours; the last of it tells a
 * heap limit from another death.
 */
export function startProcess(main: ThreadModule, limits: { memoryMb: number; youngMb: number; env: Readonly<Record<string, string>> }, events: RunnerEvents): PoolRunner {
  const flags = [`--max-old-space-size=${limits.memoryMb}`, `--max-semi-space-size=${Math.max(1, Math.floor(limits.youngMb / 2))}`];
  const child = spawn(process.execPath, [...flags, '--input-type=module', '-e', BOOTSTRAP, main.url, main.tsxApi ?? ''], {
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    serialization: 'advanced',
    env: { ...limits.env },
  });
  const stderr = child.stderr as Readable & { ref?(): void; unref?(): void };
  let tail = '';
  stderr.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-4096);
  });
  child.on('message', (reply) => events.reply(reply as TaskReply));
  child.on('error', (err) => events.failed('crashed', err));
  child.on('close', (code, signal) => {
    if (code !== 0) events.failed(OUT_OF_MEMORY.test(tail) ? 'out_of_memory' : 'crashed', new Error(`the pool process ended with ${signal ?? `exit code ${code}`}`));
    events.exited();
  });
  const channel = () => child.channel as { ref(): void; unref(): void } | null | undefined;
  return {
    send: (request) => void child.send(request),
    terminate: () => void child.kill('SIGKILL'),
    ref() {
      child.ref();
      channel()?.ref();
      stderr.ref?.();
    },
    unref() {
      child.unref();
      channel()?.unref();
      stderr.unref?.();
    },
    cpuMs: () => (child.pid === undefined ? null : cpuMsOf(processStatPath(child.pid))),
  };
}
