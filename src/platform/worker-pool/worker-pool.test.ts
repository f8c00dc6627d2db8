import os from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { createWorkerPool, defineWorkerTask, WorkerTaskError, type WorkerPool } from './worker-pool.js';
import { POOL_THREAD_NICE } from './protocol.js';

// The tasks live with the test fixtures; each runs on a pool thread (the .ts source, through tsx).
const tasksUrl = new URL('../../../test/fixtures/worker-pool/tasks.js', import.meta.url);
const echo = defineWorkerTask<{ tag: string }, { length: number; first: number; tag: string; copy: Uint8Array }>(tasksUrl, 'echo');
const refuse = defineWorkerTask<{ field: string }, never>(tasksUrl, 'refuse');
const fail = defineWorkerTask<Record<string, never>, never>(tasksUrl, 'fail');
const spin = defineWorkerTask<{ ms?: number }, string>(tasksUrl, 'spin');
const nap = defineWorkerTask<{ ms?: number }, string>(tasksUrl, 'nap');
const die = defineWorkerTask<Record<string, never>, never>(tasksUrl, 'die');
const hog = defineWorkerTask<Record<string, never>, number>(tasksUrl, 'hog');
const environment = defineWorkerTask<Record<string, never>, string[]>(tasksUrl, 'environment');
const niceness = defineWorkerTask<Record<string, never>, { thread: number; process: number; all: number[] }>(tasksUrl, 'niceness');

const pools: WorkerPool[] = [];
afterAll(() => Promise.all(pools.map((p) => p.close())));

describe.each(['thread', 'process'] as const)('worker pool, isolation %s', (isolation) => {
  const pool = (o: Partial<Parameters<typeof createWorkerPool>[0]> = {}) => {
    const p = createWorkerPool({ threads: 1, queueLimit: 4, taskTimeoutMs: 10_000, memoryMb: 128, isolation, ...o });
    pools.push(p);
    return p;
  };

  it('runs a task: bytes in (the caller keeps its own), JSON and byte arrays out', async () => {
    const p = pool();
    const input = Buffer.from([9, 8, 7]);
    const out = await p.run(echo, input, { tag: 'x' });
    expect(out).toEqual({ length: 3, first: 9, tag: 'x', copy: new Uint8Array([9, 8]) });
    expect([...input]).toEqual([9, 8, 7]);
  }, 20_000);

  it("an AppError thrown in the task arrives as that AppError; any other error as a plain one (a 500 at the caller's)", async () => {
    const p = pool();
    const err = await p.run(refuse, new Uint8Array(1), { field: 'items/a.xml' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'invalid_request', status: 400, message: 'items/a.xml is refused', details: [{ field: 'items/a.xml', message: 'is refused' }] });
    const bug = await p.run(fail, new Uint8Array(1), {}).catch((e: unknown) => e);
    expect(bug).not.toBeInstanceOf(AppError);
    expect((bug as Error).message).toContain('a bug in the task');
  }, 20_000);

  it.skipIf(process.platform !== 'linux')('runs below the event loop: a pool thread (a pool process, every thread of it) is niced by POOL_THREAD_NICE, the main thread is not', async () => {
    const before = os.getPriority(process.pid);
    const lowered = Math.min(19, before + POOL_THREAD_NICE);
    const seen = await pool().run(niceness, new Uint8Array(1), {});
    if (isolation === 'thread') {
      expect(seen).toMatchObject({ thread: lowered, process: before });
    } else {
      // The task runs on the process's main thread; V8's helper threads (garbage collection, compiling) are lowered too.
      expect(seen).toMatchObject({ thread: lowered, process: lowered });
      expect(seen.all.length).toBeGreaterThan(2);
      expect(new Set(seen.all)).toEqual(new Set([lowered]));
    }
    expect(os.getPriority(process.pid)).toBe(before);
  }, 20_000);

  it.runIf(isolation === 'process')('a pool process starts with the environment it is given (config.ts leaves out the secrets), nothing of the API\'s', async () => {
    // This process has DATABASE_URL and the rest of the suite's environment: none of it may reach the pool process.
    const names = await pool({ processEnv: { PATH: '/usr/bin', TZ: 'UTC' } }).run(environment, new Uint8Array(1), {});
    expect([...names].sort()).toEqual(['PATH', 'TZ']);
  }, 20_000);

  it('a full queue answers 503 unavailable with Retry-After at once; the queued tasks still run', async () => {
    const p = pool({ threads: 1, queueLimit: 2 });
    const running = [p.run(spin, new Uint8Array(1), { ms: 300 }), p.run(spin, new Uint8Array(1), { ms: 10 }), p.run(spin, new Uint8Array(1), { ms: 10 })];
    expect(p.stats()).toMatchObject({ busy: 1, queued: 2 });
    const t0 = performance.now();
    const full = await p.run(spin, new Uint8Array(1), { ms: 10 }).catch((e: unknown) => e);
    expect(performance.now() - t0).toBeLessThan(50);
    expect(full).toBeInstanceOf(AppError);
    expect(full).toMatchObject({ code: 'unavailable', status: 503, headers: { 'Retry-After': '5' } });
    expect(await Promise.all(running)).toEqual(['done', 'done', 'done']);
  }, 20_000);

  it('a task over its time limit is stopped (its thread terminated) and the pool goes on with a new thread', async () => {
    const p = pool();
    const t0 = performance.now();
    const err = await p.run(spin, new Uint8Array(1), {}, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkerTaskError);
    expect((err as WorkerTaskError).reason).toBe('timeout');
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect((await p.run(echo, new Uint8Array([1]), { tag: 'after' })).tag).toBe('after');
  }, 20_000);

  it.skipIf(process.platform !== 'linux')('the limit counts the CPU time the task ran: one that waits (as for a core on a busy machine) goes on past it, and the wall clock stops it at 4 × the limit', async () => {
    const p = pool();
    await p.run(echo, new Uint8Array(1), { tag: 'warm' });
    // 700 ms of waiting against a limit of 300 ms: its CPU time stays near nothing, so it finishes.
    expect(await p.run(nap, new Uint8Array(1), { ms: 700 }, { timeoutMs: 300 })).toBe('done');
    const t0 = performance.now();
    const err = await p.run(nap, new Uint8Array(1), {}, { timeoutMs: 300 }).catch((e: unknown) => e);
    const took = performance.now() - t0;
    expect(err).toBeInstanceOf(WorkerTaskError);
    expect((err as WorkerTaskError).reason).toBe('timeout');
    expect(took).toBeGreaterThanOrEqual(1_150);
    expect(took).toBeLessThan(4_000);
    expect((await p.run(echo, new Uint8Array([4]), { tag: 'after' })).tag).toBe('after');
  }, 20_000);

  it('a thread that dies fails its task and is replaced', async () => {
    const p = pool();
    const err = await p.run(die, new Uint8Array(1), {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkerTaskError);
    expect((err as WorkerTaskError).reason).toBe('crashed');
    expect((await p.run(echo, new Uint8Array([2]), { tag: 'replaced' })).first).toBe(2);
  }, 20_000);

  it('a task over the heap limit kills its thread, not the process', async () => {
    const p = pool({ memoryMb: 64 });
    const err = await p.run(hog, new Uint8Array(1), {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkerTaskError);
    expect((err as WorkerTaskError).reason).toBe('out_of_memory');
    expect((await p.run(echo, new Uint8Array([3]), { tag: 'alive' })).tag).toBe('alive');
  }, 30_000);

  it('close fails waiting tasks with 503 and refuses new ones', async () => {
    const p = pool({ threads: 1, queueLimit: 2 });
    const running = p.run(spin, new Uint8Array(1), { ms: 2_000 }).catch((e: unknown) => e);
    const waiting = p.run(spin, new Uint8Array(1), { ms: 10 }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    await p.close();
    expect(await waiting).toMatchObject({ code: 'unavailable' });
    expect(await running).toMatchObject({ code: 'unavailable' });
    expect(await p.run(echo, new Uint8Array(1), { tag: 'x' }).catch((e: unknown) => e)).toMatchObject({ code: 'unavailable' });
  }, 20_000);
});
