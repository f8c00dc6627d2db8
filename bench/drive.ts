import { once } from 'node:events';
import fs from 'node:fs';
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
  /** The system (kernel) part of cpuUs: sockets, mostly. */
  sysUs: number;
  /** Read and write system calls of the servers' process per request (/proc/<pid>/io; null off Linux). */
  syscalls: { reads: number; writes: number } | null;
  /** CPU time of the embedded PostgreSQL per request, in µs (null with DATABASE_URL). */
  pgUs: number | null;
  /** Garbage collection in the servers' process during the run, in ms (all pauses summed). */
  gcMs: number;
  /** The servers' heap in use at the end of the run, in MB. */
  heapMb: number;
  failed: number;
  /** The machine's CPU during the run, % of all cores' time: idle, and stolen by the hypervisor (null off Linux). */
  idlePct: number | null;
  stealPct: number | null;
}

/** The machine's CPU time so far from /proc/stat's first line, in ticks: idle and steal and the total. */
function machineTicks(): { idle: number; steal: number; total: number } | null {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    // user nice system idle iowait irq softirq steal
    return { idle: fields[3]! + fields[4]!, steal: fields[7]!, total: fields.reduce((a, b) => a + b, 0) };
  } catch {
    return null;
  }
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
  const machineBefore = machineTicks();
  const ioBefore = syscallCounts(child.pid);
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
  const machineAfter = machineTicks();
  const ioAfter = syscallCounts(child.pid);
  const pgAfter = opts.clusterDir ? postgresCpuUs(opts.clusterDir) : null;
  const n = Math.max(1, result.requests.total);
  const cpu = (s: ServersStats) => s.cpu.user + s.cpu.system;
  return {
    rps: result.requests.total / (result.duration || opts.seconds),
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuUs: (cpu(after) - cpu(before)) / n,
    sysUs: (after.cpu.system - before.cpu.system) / n,
    syscalls: ioBefore && ioAfter ? { reads: (ioAfter.reads - ioBefore.reads) / n, writes: (ioAfter.writes - ioBefore.writes) / n } : null,
    pgUs: pgBefore !== null && pgAfter !== null ? (pgAfter - pgBefore) / n : null,
    gcMs: after.gcMs - before.gcMs,
    heapMb: after.heapUsed / 2 ** 20,
    failed: result.non2xx + result.errors + result.timeouts,
    ...machineShares(machineBefore, machineAfter),
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

function machineShares(a: ReturnType<typeof machineTicks>, b: ReturnType<typeof machineTicks>): { idlePct: number | null; stealPct: number | null } {
  if (!a || !b || b.total <= a.total) return { idlePct: null, stealPct: null };
  const total = b.total - a.total;
  return { idlePct: (100 * (b.idle - a.idle)) / total, stealPct: (100 * (b.steal - a.steal)) / total };
}

function syscallCounts(pid: number | undefined): { reads: number; writes: number } | null {
  try {
    const io = fs.readFileSync(`/proc/${pid}/io`, 'utf8');
    return { reads: Number(/syscr: (\d+)/.exec(io)![1]), writes: Number(/syscw: (\d+)/.exec(io)![1]) };
  } catch {
    return null;
  }
}
