import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import type { BaselinesSeed, ServersReady } from './servers.js';
import { NODE_FLAGS } from '../bin/node-flags.js';
import { buildBenchServers } from './build-servers.js';

/**
 * Starts bench/servers.ts (the app and the bare baselines, seeded) in a child
 * process, so the load generator does not share their event loop, and waits
 * until they listen, with the V8 flags the product runs with (bin/node-flags.js).
 * `apart`: the baselines in a second process (`baselines`), so that the app's
 * process serves the app alone, as in production: its heap, its garbage
 * collections and its compiled code are then its own. `profileDir`: a V8 CPU
 * profile of the app's process. `built`: the servers and the app compiled by
 * tsc first (bench/build-servers.ts), as production runs them, instead of
 * through tsx.
 */
export async function startBenchServers(
  databaseUrl: string,
  opts: { seedAssignments?: number; profileDir?: string; built?: boolean; apart?: boolean } = {},
): Promise<{ child: ChildProcess; baselines: ChildProcess; ready: ServersReady }> {
  const entry = opts.built ? buildBenchServers() : path.join(import.meta.dirname, 'servers.ts');
  const start = (args: string[], profile: boolean, flags: readonly string[] = []) =>
    fork(entry, [databaseUrl, String(opts.seedAssignments ?? 0), ...args], {
      execArgv: [...NODE_FLAGS, ...flags, ...(opts.built ? [] : ['--import', 'tsx']), ...(profile && opts.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.profileDir}`] : [])],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
  const child = start(opts.apart ? ['app'] : [], true);
  if (!opts.apart) {
    const ready = await readyFrom<ServersReady>(child);
    return { child, baselines: child, ready };
  }
  const { seed, ...app } = await readyFrom<Omit<ServersReady, 'baselineUrl' | 'batchedUrl'> & { seed: BaselinesSeed }>(child);
  const baselines = start(['baselines', JSON.stringify(seed)], false, BASELINE_FLAGS);
  return { child, baselines, ready: { ...app, ...(await readyFrom<Pick<ServersReady, 'baselineUrl' | 'batchedUrl'>>(baselines)) } };
}

/**
 * The baselines' process runs without V8's memory reducer: the ruler must not move. In the idle moments
 * between its slices the reducer ran a full collection at the same point of every run (the start of the
 * third round), which deoptimized about 200 functions, and the batched bare route then ran about a tenth
 * slower for the whole round (30,000 → 26,000-27,000 req/s) while Assay's read held, so the read's ratio
 * rose by as much (docs/performance.md, "A steady ruler"). The app's process keeps the product's flags.
 */
const BASELINE_FLAGS = ['--no-memory-reducer'];

async function readyFrom<T>(child: ChildProcess): Promise<T> {
  const [ready] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(() => {
      throw new Error('the bench servers exited before they were ready');
    }),
  ])) as [T];
  return ready;
}
