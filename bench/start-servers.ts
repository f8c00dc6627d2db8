import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import type { ServersReady } from './servers.js';
import { NODE_FLAGS } from '../bin/node-flags.js';
import { buildBenchServers } from './build-servers.js';

/**
 * Starts bench/servers.ts (the app and the bare baseline, seeded) in a child
 * process, so the load generator does not share their event loop, and waits
 * until they listen, with the V8 flags the product runs with (bin/node-flags.js).
 * `profileDir`: a V8 CPU profile of that process. `built`: the servers and
 * the app compiled by tsc first (bench/build-servers.ts), as production runs
 * them, instead of through tsx.
 */
export async function startBenchServers(
  databaseUrl: string,
  opts: { seedAssignments?: number; profileDir?: string; built?: boolean } = {},
): Promise<{ child: ChildProcess; ready: ServersReady }> {
  const entry = opts.built ? buildBenchServers() : path.join(import.meta.dirname, 'servers.ts');
  const child = fork(entry, [databaseUrl, String(opts.seedAssignments ?? 0)], {
    execArgv: [...NODE_FLAGS, ...(opts.built ? [] : ['--import', 'tsx']), ...(opts.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.profileDir}`] : [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [ready] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(() => {
      throw new Error('the bench servers exited before they were ready');
    }),
  ])) as [ServersReady];
  return { child, ready };
}
