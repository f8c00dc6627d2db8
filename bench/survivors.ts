import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { NODE_FLAGS } from '../bin/node-flags.js';
import { openBenchDatabase } from './bench-database.js';
import type { ImportServerReady } from './import-server.js';
import { frameName, type ProfileNode } from './heap-profile.js';

/**
 * `npm run bench:survivors [-- --rate 600 --seconds 10 --only TEXT --sites N]`
 *
 * What a partner read leaves alive for the young generation's collector:
 * each route is read at a fixed rate (bench/partner-reader.ts, a process of
 * its own) from a fresh server (bench/import-server.ts: 20 published tests,
 * the product's V8 flags) started with `--trace-gc-nvp`, and the bench sums
 * the server's young collections over `seconds` after a warm-up: the bytes
 * that survived one per request served, the bytes promoted, and the pauses.
 *
 * A read's objects die with its answer, so what survives a young collection
 * should be the few reads in flight at that moment: bytes, not kilobytes,
 * per request. Kilobytes per request mean something keeps every read's
 * objects until the collection after (docs/performance.md, "What survives a
 * young collection"), and each collection then copies them, pausing the loop
 * for as long as that takes. `--sites N` also samples, during the same
 * seconds, where the objects that outlived a young collection were
 * allocated (V8's sampling heap profiler), and prints the N largest places
 * per route: what is kept, not what keeps it. The profiler slows the
 * server, so the pauses of such a run are not comparable with others.
 */
const { values: opts } = parseArgs({
  options: {
    rate: { type: 'string', default: '600' },
    seconds: { type: 'string', default: '10' },
    // Only the routes whose label contains this text.
    only: { type: 'string', default: '' },
    sites: { type: 'string', default: '0' },
  },
});
const RATE = Number(opts.rate);
const SECONDS = Number(opts.seconds);
if (!Number.isInteger(RATE) || RATE < 10 || !Number.isInteger(SECONDS) || SECONDS < 3) throw new Error('--rate ≥ 10 and --seconds ≥ 3, whole numbers');
const SITES = Number(opts.sites);
if (!Number.isInteger(SITES) || SITES < 0) throw new Error('--sites is a whole number');
const WARM_UP_MS = 3_000;

/** The `n` largest allocation places of a sampled profile, each as its function and its caller, in KB per read. */
function largestSites(head: ProfileNode, reads: number, n: number): string[] {
  const bytes = new Map<string, number>();
  const walk = (node: ProfileNode, caller: string) => {
    const here = frameName(node.callFrame);
    const key = `${here} < ${caller}`;
    if (node.selfSize > 0) bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
    for (const c of node.children) walk(c, here);
  };
  walk(head, '(root)');
  return [...bytes].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${(v / reads / 1024).toFixed(2).padStart(7)} KB  ${k}`);
}

interface Scavenge {
  pauseMs: number;
  survived: number;
  promoted: number;
}

/** One `--trace-gc-nvp` line of a young collection (gc=s), or null. */
function scavengeOf(line: string): { isolate: string; s: Scavenge } | null {
  if (!line.includes(' gc=s ')) return null;
  const isolate = line.slice(0, line.indexOf(']') + 1);
  const field = (name: string) => Number(new RegExp(`\\b${name}=([0-9.]+)`).exec(line)?.[1] ?? NaN);
  return { isolate, s: { pauseMs: field('pause'), survived: field('new_space_survived'), promoted: field('promoted') } };
}

/** A route to read: its path, and the headers to send instead of the API key (a student's session cookie). */
type Target = { path: string; headers?: Record<string, string> };
interface Route {
  label: string;
  target: (r: ImportServerReady) => Promise<Target>;
  /** Reads a second, when the route is heavier than a partner read. */
  rate?: number;
}

async function measure(databaseUrl: string, route: Route) {
  const server = fork(path.join(import.meta.dirname, 'import-server.ts'), [databaseUrl], {
    execArgv: [...NODE_FLAGS, '--trace-gc-nvp', '--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const children: ChildProcess[] = [server];
  try {
    // The main thread's isolate is the first to collect (the pool's threads start with an import, and this bench imports nothing).
    let main: string | null = null;
    let window: Scavenge[] | null = null;
    createInterface({ input: server.stdout! }).on('line', (line) => {
      const found = scavengeOf(line);
      if (!found) return;
      main ??= found.isolate;
      if (found.isolate === main) window?.push(found.s);
    });
    const [ready] = (await once(server, 'message')) as [ImportServerReady];
    const target = await route.target(ready);
    const rate = Math.min(RATE, route.rate ?? RATE);
    const args = [ready.url, target.path, ready.apiKey, String(rate), ...(target.headers ? [JSON.stringify(target.headers)] : [])];
    const reader = fork(path.join(import.meta.dirname, 'partner-reader.ts'), args, {
      execArgv: [...NODE_FLAGS, '--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(reader);
    await once(reader, 'message'); // 'ready'
    const take = async (m: 'take' | 'stop') => {
      const reply = once(reader, 'message') as Promise<[{ latencies: number[]; errors: string[] }]>;
      reader.send(m);
      const [r] = await reply;
      if (r.errors.length > 0) throw new Error(`${route.label}: ${r.errors.slice(0, 3).join('; ')}`);
      return r.latencies.length;
    };
    await new Promise((r) => setTimeout(r, WARM_UP_MS));
    await take('take');
    window = [];
    if (SITES > 0) {
      server.send('sample-survivors');
      await once(server, 'message');
    }
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    let profile: ProfileNode | null = null;
    if (SITES > 0) {
      server.send('sampled');
      profile = ((await once(server, 'message')) as [{ profile: { head: ProfileNode } | null }])[0].profile?.head ?? null;
    }
    const seen = window;
    window = null;
    const reads = await take('stop');
    const sum = (f: (s: Scavenge) => number) => seen.reduce((n, s) => n + f(s), 0);
    const pauses = seen.map((s) => s.pauseMs);
    return {
      reads,
      scavenges: seen.length,
      survivedPerRead: sum((s) => s.survived) / reads,
      promotedPerRead: sum((s) => s.promoted) / reads,
      meanPauseMs: pauses.length ? sum((s) => s.pauseMs) / pauses.length : 0,
      maxPauseMs: pauses.length ? Math.max(...pauses) : 0,
      sites: profile ? largestSites(profile, reads, SITES) : [],
    };
  } finally {
    server.send('stop');
    await Promise.race([once(server, 'exit'), new Promise((r) => setTimeout(r, 5_000))]);
    for (const child of children) if (child.exitCode === null) child.kill();
  }
}

/** An assignment created through the API as a partner would. */
async function createAssignment(r: ImportServerReady): Promise<{ assignmentId: string; startUrl: string }> {
  const headers = { authorization: `Bearer ${r.apiKey}`, 'content-type': 'application/json' };
  const tests = (await (await request(`${r.url}/api/partner/v1/tests?limit=1`, { headers })).body.json()) as { data: Array<{ testId: string }> };
  const res = await request(`${r.url}/api/partner/v1/assignments`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ testId: tests.data[0]!.testId, externalUserId: 'u1', user: { email: 'u1@bench.example', name: 'U One' }, callbackUrl: 'https://bench.example/return', metadata: { cohort: 'a' } }),
  });
  const made = (await res.body.json()) as { assignmentId?: string; startUrl?: string };
  if (res.statusCode !== 201 || !made.assignmentId || !made.startUrl) throw new Error(`creating the assignment to read answered ${res.statusCode}`);
  return { assignmentId: made.assignmentId, startUrl: made.startUrl };
}

/** A student seated as a browser is: the start link opened (session cookie), the page loaded, Begin pressed; their test page is read. */
async function studentPage(r: ImportServerReady): Promise<Target> {
  const { assignmentId, startUrl } = await createAssignment(r);
  const opened = await request(`${r.url}${new URL(startUrl).pathname}`);
  await opened.body.dump();
  const cookie = String(opened.headers['set-cookie'] ?? '').split(';')[0]!;
  const page = await (await request(`${r.url}/a/${assignmentId}`, { headers: { cookie } })).body.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
  if (!cookie || !csrf) throw new Error('seating the student: no session cookie or CSRF token');
  const begun = await request(`${r.url}/a/${assignmentId}/begin`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: `csrf=${csrf}` });
  await begun.body.dump();
  if (begun.statusCode !== 303) throw new Error(`pressing Begin answered ${begun.statusCode}`);
  return { path: `/a/${assignmentId}`, headers: { cookie } };
}

const ROUTES: Route[] = [
  { label: 'GET /healthz (no database, no key)', target: async () => ({ path: '/healthz' }) },
  { label: 'GET /api/partner/v1/tests (20 tests)', target: async () => ({ path: '/api/partner/v1/tests?limit=20' }) },
  { label: 'GET /api/partner/v1/assignments/{id}', target: async (r) => ({ path: `/api/partner/v1/assignments/${(await createAssignment(r)).assignmentId}` }) },
  { label: "GET /a/{id} (a student's test page)", target: studentPage, rate: 200 },
];

console.log(`Survivors of the young collections, per request: ${RATE} reads a second (a student's page 200 at most) for ${SECONDS} s after ${WARM_UP_MS / 1000} s of warm-up, a fresh server per route`);
console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} on ${os.cpus().length} cores, Node ${process.version}\n`);
const db = await openBenchDatabase('assay_bench_survivors');
try {
  for (const route of ROUTES.filter((r) => r.label.includes(opts.only))) {
    const m = await measure(db.url, route);
    console.log(
      `  ${route.label.padEnd(40)} ${m.reads} reads, ${m.scavenges} young collections; survived ${(m.survivedPerRead / 1024).toFixed(2)} KB and promoted ${(m.promotedPerRead / 1024).toFixed(2)} KB per read; pause mean ${m.meanPauseMs.toFixed(1)} ms, longest ${m.maxPauseMs.toFixed(1)} ms`,
    );
    for (const site of m.sites) console.log(`      ${site}`);
  }
} finally {
  await db.close();
}
