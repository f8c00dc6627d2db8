import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { postgresCpuUs } from './postgres-cpu.js';

/** One load against one route: autocannon from this process, CPU read from the servers' child (bench/servers.ts). */
export interface Target {
  url: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  /** Called per request: a new body (and extra headers) each time. */
  next?: () => { body: string; headers?: Record<string, string> };
}

export interface Measured {
  rps: number;
  p50: number;
  p99: number;
  /** CPU time (user + system) of the servers' process per request, in µs. */
  cpuUs: number;
  /** CPU time of the embedded PostgreSQL per request, in µs (null with DATABASE_URL). */
  pgUs: number | null;
  /** Garbage collection in the servers' process during the run, in ms (all pauses summed). */
  gcMs: number;
  /** The servers' heap in use at the end of the run, in MB. */
  heapMb: number;
  failed: number;
}

/** What bench/servers.ts answers to 'cpu'. */
export interface ServersStats {
  cpu: NodeJS.CpuUsage;
  gcMs: number;
  heapUsed: number;
}

export async function serversStats(child: ChildProcess): Promise<ServersStats> {
  const reply = once(child, 'message') as Promise<[ServersStats]>;
  child.send('cpu');
  const [stats] = await reply;
  return stats;
}

export async function drive(child: ChildProcess, t: Target, opts: { seconds: number; connections: number; clusterDir: string | null }): Promise<Measured> {
  const before = await serversStats(child);
  const pgBefore = opts.clusterDir ? postgresCpuUs(opts.clusterDir) : null;
  const result = await autocannon({
    url: t.url,
    connections: opts.connections,
    duration: opts.seconds,
    requests: [
      {
        method: t.method,
        path: t.path,
        headers: t.headers,
        ...(t.next
          ? {
              setupRequest: (req: autocannon.Request) => {
                const n = t.next!();
                return { ...req, body: n.body, headers: { ...t.headers, ...n.headers } };
              },
            }
          : {}),
      },
    ],
  });
  const after = await serversStats(child);
  const pgAfter = opts.clusterDir ? postgresCpuUs(opts.clusterDir) : null;
  const n = Math.max(1, result.requests.total);
  const cpu = (s: ServersStats) => s.cpu.user + s.cpu.system;
  return {
    rps: result.requests.total / (result.duration || opts.seconds),
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuUs: (cpu(after) - cpu(before)) / n,
    pgUs: pgBefore !== null && pgAfter !== null ? (pgAfter - pgBefore) / n : null,
    gcMs: after.gcMs - before.gcMs,
    heapMb: after.heapUsed / 2 ** 20,
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

/**
 * The create bodies both partner benches send: 1000 distinct students, cycled, so the user upsert updates as
 * often as it inserts, for the app and the baselines alike.
 */
export function createBodies(testId: string): () => { body: string } {
  let n = 0;
  return () => ({
    body: JSON.stringify({
      externalUserId: `student-${n++ % 1000}`,
      testId,
      user: { email: 'student@bench.example', name: 'Bench Student' },
      callbackUrl: 'https://bench.example/return',
      metadata: { course: 'BENCH-101' },
    }),
  });
}
