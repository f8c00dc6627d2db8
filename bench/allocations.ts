import { once } from 'node:events';
import { parseArgs } from 'node:util';
import type { ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { openBenchDatabase } from './bench-database.js';
import { startBenchServers } from './start-servers.js';
import { frameName, type ProfileNode } from './heap-profile.js';

/**
 * `npm run bench:allocations [-- --duration 5 --top 30]`: what the partner read allocates per request,
 * against the batched bare read (bench/batched-baseline.ts), and where.
 *
 * The servers start compiled (bench/build-servers.ts) with the product's V8 flags; each read is warmed
 * for 3 s, then driven for `duration` s (32 connections) under V8's sampling heap profiler, which counts
 * every allocation, the ones already collected too. It prints the bytes allocated per request of each,
 * then the functions whose allocations differ most, per request (the app's, the baseline's, the
 * difference). What a request allocates is what the young generation's collector has to sweep: the
 * garbage collection the CPU profile shows (docs/performance.md, "Round by round").
 */
const { values: opts } = parseArgs({ options: { duration: { type: 'string', default: '5' }, top: { type: 'string', default: '30' } } });
const DURATION = Number(opts.duration);
const TOP = Number(opts.top);
if (!Number.isInteger(DURATION) || DURATION < 1 || !Number.isInteger(TOP) || TOP < 1) throw new Error('--duration and --top are whole numbers ≥ 1');

async function ask(child: ChildProcess, m: string): Promise<unknown> {
  for (;;) {
    const reply = once(child, 'message') as Promise<[{ allocations?: unknown }]>;
    child.send(m);
    const [r] = await reply;
    if (r.allocations !== undefined) return r.allocations;
  }
}

/** Bytes per request by function (`name file:line`, paths short). */
function perFunction(head: ProfileNode, requests: number): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (n: ProfileNode) => {
    const key = frameName(n.callFrame);
    out.set(key, (out.get(key) ?? 0) + n.selfSize / requests);
    for (const c of n.children) walk(c);
  };
  walk(head);
  return out;
}

const db = await openBenchDatabase('assay_allocations');
const { child, ready } = await startBenchServers(db.url, { built: true });
try {
  const headers = { authorization: `Bearer ${ready.apiKey}` };
  const reads = {
    app: { url: ready.appUrl, path: `/api/partner/v1/assignments/${ready.assignmentId}` },
    batched: { url: ready.batchedUrl, path: `/assignments/${ready.assignmentId}` },
  };
  const drive = (t: { url: string; path: string }, seconds: number) =>
    autocannon({ url: t.url, connections: 32, duration: seconds, requests: [{ method: 'GET', path: t.path, headers }] });
  const measured: Record<keyof typeof reads, Map<string, number>> = { app: new Map(), batched: new Map() };
  for (const which of ['app', 'batched'] as const) {
    await drive(reads[which], 3);
    await ask(child, 'alloc-start');
    const r = await drive(reads[which], DURATION);
    const profile = (await ask(child, 'alloc-stop')) as { head: ProfileNode };
    if (r.non2xx + r.errors > 0) throw new Error(`${which}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
    measured[which] = perFunction(profile.head, r.requests.total);
  }
  const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;
  process.stdout.write(`allocated per request: Assay's read ${kb(total(measured.app))}, the batched bare read ${kb(total(measured.batched))}\n\n`);
  process.stdout.write(`${'Assay'.padStart(7)} ${'bare'.padStart(7)} ${'more'.padStart(7)}  bytes per request, by function\n`);
  const keys = new Set([...measured.app.keys(), ...measured.batched.keys()]);
  const rows = [...keys].map((k) => ({ k, a: measured.app.get(k) ?? 0, b: measured.batched.get(k) ?? 0 }));
  rows.sort((x, y) => Math.abs(y.a - y.b) - Math.abs(x.a - x.b));
  for (const { k, a, b } of rows.slice(0, TOP)) {
    process.stdout.write(`${a.toFixed(0).padStart(7)} ${b.toFixed(0).padStart(7)} ${(a - b).toFixed(0).padStart(7)}  ${k}\n`);
  }
} finally {
  child.kill('SIGTERM');
  await once(child, 'exit').catch(() => undefined);
  await db.close();
}
