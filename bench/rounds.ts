import { once } from 'node:events';
import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openBenchDatabase } from './bench-database.js';
import { createBodies, drive, type Measured, type Target } from './drive.js';
import { startBenchServers } from './start-servers.js';

/**
 * `npm run bench [-- --duration 8 --rounds 3 --connections 32]`: the partner
 * API round by round, from a cold start, with the create bursts between
 * the reads as a partner's day has them.
 *
 * The servers start fresh (bench/servers.ts, no warm-up), the app in one
 * process and the baselines in another, so that neither's garbage or
 * compiled code lands in the other's runs; then each round
 * drives, in this order: the naive bare read (one statement per request),
 * the batched bare read, the HTTP ceiling, Assay's read, Assay's listing,
 * the bare create (the bare transaction), Assay's create. So every read
 * after the first round follows a burst of tens of thousands of creates.
 * Per round it prints the read's ratio to the batched bare route and to
 * the HTTP ceiling, and the create's ratio to the bare transaction; and
 * what the rounds leave behind, to find a swing's cause: the servers'
 * garbage collection and heap, PostgreSQL's autovacuum workers seen while
 * Assay's read ran, and the tables' live and dead rows.
 *
 * Targets: the read ≥ 0.7 × the batched bare route in every round, its
 * rounds within 10 % of one another; the create ≥ 0.9 × the bare
 * transaction in every round. The case-by-case comparison (keyed creates,
 * no portal, the read after creates) is `npm run bench:cases`.
 */
const { values: opts } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    // Leave runs out by key (naive, batched, ceiling, read, list, bareCreate, create), to tell what a swing follows.
    skip: { type: 'string', default: '' },
    slices: { type: 'string', default: '4' },
    // Run the servers through tsx instead of compiled by tsc (bench/build-servers.ts), to see what tsx costs.
    tsx: { type: 'boolean', default: false },
    // The app and the baselines in one process, as the bench ran them before 3 December 2026, to compare.
    together: { type: 'boolean', default: false },
    // The read's slices drive the batched bare route too: the bench's own spread, with no difference to find.
    aa: { type: 'boolean', default: false },
    // Each slice's own figures under its round's, and when each began (µs of the monotonic clock).
    'slice-detail': { type: 'boolean', default: false },
    // A V8 CPU profile of the app's process into this directory; with --slice-detail its slices can be cut out of it.
    profile: { type: 'string' },
  },
});
const DURATION = Number(opts.duration);
const ROUNDS = Number(opts.rounds);
const CONNECTIONS = Number(opts.connections);
const SLICES = Number(opts.slices);
for (const [name, v] of Object.entries({ duration: DURATION, rounds: ROUNDS, connections: CONNECTIONS, slices: SLICES })) {
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} must be a whole number`);
}
const READ_TARGET = 0.7;
const CREATE_TARGET = 0.9;
const ROUND_SPREAD = 0.1;

const load = os.loadavg();
const db = await openBenchDatabase('assay_rounds');
const { child, baselines, ready } = await startBenchServers(db.url, {
  built: !opts.tsx,
  apart: !opts.together,
  ...(opts.profile ? { profileDir: opts.profile } : {}),
});
const stats = new pg.Client({ connectionString: db.url });
await stats.connect();

const auth = { authorization: `Bearer ${ready.apiKey}` };
const json = { ...auth, 'content-type': 'application/json' };
const createBody = createBodies(ready.testId);
const get = (url: string, p: string): Target => ({ url, method: 'GET', path: p, headers: auth });
const id = ready.assignmentId;
const STEPS = [
  { key: 'naive', label: 'bare read (one statement each)', t: get(ready.baselineUrl, `/assignments/${id}`) },
  { key: 'batched', label: 'batched bare read', t: get(ready.batchedUrl, `/assignments/${id}`) },
  { key: 'ceiling', label: 'HTTP ceiling (read bytes)', t: get(ready.batchedUrl, `/ceiling/assignments/${id}`) },
  opts.aa
    ? { key: 'read', label: 'batched bare read again (--aa)', t: get(ready.batchedUrl, `/assignments/${id}`) }
    : { key: 'read', label: 'Assay GET /assignments/{id}', t: get(ready.appUrl, `/api/partner/v1/assignments/${id}`) },
  { key: 'list', label: 'Assay GET /tests', t: get(ready.appUrl, '/api/partner/v1/tests') },
  { key: 'bareCreate', label: 'bare create (the bare transaction)', t: { url: ready.baselineUrl, method: 'POST', path: '/assignments', headers: json, next: createBody } },
  { key: 'create', label: 'Assay POST /assignments', t: { url: ready.appUrl, method: 'POST', path: '/api/partner/v1/assignments', headers: json, next: createBody } },
] as const satisfies readonly { key: string; label: string; t: Target }[];
type StepKey = (typeof STEPS)[number]['key'];
const SKIP = new Set(opts.skip.split(',').filter(Boolean));
for (const k of SKIP) if (!STEPS.some((s) => s.key === k)) throw new Error(`--skip: no run is called ${k}`);

/** The autovacuum and autoanalyze work PostgreSQL did while `during` ran, sampled every 200 ms. */
async function autovacuumDuring<T>(during: Promise<T>): Promise<{ value: T; seen: string[] }> {
  const seen = new Set<string>();
  let done = false;
  const sampler = (async () => {
    while (!done) {
      const { rows } = await stats.query<{ q: string }>("SELECT query AS q FROM pg_stat_activity WHERE backend_type = 'autovacuum worker' AND query <> ''");
      for (const r of rows) seen.add(r.q.replace(/^autovacuum: /, ''));
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  const value = await during;
  done = true;
  await sampler;
  return { value, seen: [...seen] };
}

async function tableRows(): Promise<string> {
  const { rows } = await stats.query<{ relname: string; live: string; dead: string }>(
    `SELECT relname, n_live_tup AS live, n_dead_tup AS dead FROM pg_stat_user_tables
      WHERE relname IN ('assignments', 'users', 'events', 'jobs', 'idempotency_keys') ORDER BY relname`,
  );
  return rows.map((r) => `${r.relname} ${Number(r.live).toLocaleString('en-US')} live / ${Number(r.dead).toLocaleString('en-US')} dead`).join(', ');
}

const cpu = os.cpus();
console.log(
  `Assay bench, round by round: ${ROUNDS} rounds of ${STEPS.length} runs of ${DURATION} s (each app run in ${SLICES} slices taking turns with its baseline), ${CONNECTIONS} connections, cold start (no warm-up), ` +
    `${opts.together ? 'the app and the baselines in one process (--together)' : 'the app and the baselines in two processes'}${opts.aa ? ', the read replaced by the batched bare route (--aa)' : ''}\n` +
    `machine: ${cpu.length} x ${cpu[0]?.model.trim()}, Node ${process.version}, PostgreSQL ${db.version} ` +
    `(${db.embedded ? 'embedded, temp dir' : 'DATABASE_URL server'}); load average at the start ${load.map((l) => l.toFixed(2)).join(' ')}`,
);

const pad = (s: string | number, n: number) => String(s).padStart(n);
type Round = { m: Partial<Record<StepKey, Measured>>; pairs: Partial<Record<'read' | 'create', number[]>> };
const rounds: Round[] = [];
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
/** A round's ratio of an app run to its baseline: the median of its slice pairs' ratios; NaN where either was skipped. */
const ratio = (round: Round, app: 'read' | 'create') => median(round.pairs[app] ?? []);

/** The slices of one run measured as one: requests summed, latencies and shares averaged, GC summed, heap at the end. */
function combine(runs: Measured[]): Measured {
  const mean = (f: (m: Measured) => number) => runs.reduce((s, m) => s + f(m), 0) / runs.length;
  return {
    rps: mean((m) => m.rps),
    p50: mean((m) => m.p50),
    p99: Math.max(...runs.map((m) => m.p99)),
    cpuUs: mean((m) => m.cpuUs),
    sysUs: mean((m) => m.sysUs),
    syscalls: runs[0]!.syscalls === null ? null : { reads: mean((m) => m.syscalls!.reads), writes: mean((m) => m.syscalls!.writes) },
    pgUs: runs[0]!.pgUs === null ? null : mean((m) => m.pgUs!),
    gcMs: runs.reduce((s, m) => s + m.gcMs, 0),
    heapMb: runs.at(-1)!.heapMb,
    failed: runs.reduce((s, m) => s + m.failed, 0),
    idlePct: runs[0]!.idlePct === null ? null : mean((m) => m.idlePct!),
    stealPct: runs[0]!.stealPct === null ? null : mean((m) => m.stealPct!),
  };
}

function line(label: string, value: Measured, seen: string[] = []): string {
  return (
    `  ${label.padEnd(36)}${pad(Math.round(value.rps), 8)} req/s  p50 ${pad(value.p50.toFixed(1), 5)}  p99 ${pad(value.p99.toFixed(1), 6)} ms` +
    `  node ${pad(Math.round(value.cpuUs), 4)} µs (kernel ${pad(Math.round(value.sysUs), 3)}${value.syscalls ? `, ${value.syscalls.reads.toFixed(2)} reads ${value.syscalls.writes.toFixed(2)} writes` : ''})  gc ${pad(Math.round(value.gcMs), 5)} ms  heap ${pad(Math.round(value.heapMb), 4)} MB` +
    (value.idlePct !== null ? `  idle ${pad(Math.round(value.idlePct), 2)} %  steal ${pad(value.stealPct!.toFixed(1), 4)} %` : '') +
    (value.failed > 0 ? `  ! ${value.failed} non-2xx or errors` : '') +
    (seen.length > 0 ? `\n      autovacuum during the read: ${seen.join('; ')}` : '')
  );
}

const step = (key: StepKey) => STEPS.find((s) => s.key === key)!;
const APP_RUNS: readonly StepKey[] = opts.aa ? ['list', 'create'] : ['read', 'list', 'create'];
const run = (key: StepKey, seconds: number) => {
  if (opts['slice-detail']) console.log(`    ${key} begins at ${process.hrtime.bigint() / 1000n} µs`);
  return drive(APP_RUNS.includes(key) ? child : baselines, step(key).t, { seconds, connections: CONNECTIONS, clusterDir: db.clusterDir });
};
const sliceLine = (key: string, m: Measured) =>
  `        ${key.padEnd(10)} ${pad(Math.round(m.rps), 6)} req/s  p99 ${pad(m.p99.toFixed(1), 5)} ms  node ${pad(Math.round(m.cpuUs), 4)} µs  gc ${pad(Math.round(m.gcMs), 4)} ms  idle ${pad(Math.round(m.idlePct ?? NaN), 2)} %`;
// Each app run takes turns with its baseline in SLICES slices (baseline, app, baseline, app, …), so that what the
// machine's neighbours take (the steal) falls on both alike; the round's ratio is the median of the pairs' ratios.
const PAIRED = { batched: 'read', bareCreate: 'create' } as const;
let failures = 0;
try {
  for (let r = 1; r <= ROUNDS; r++) {
    console.log(`\nround ${r}  (${await tableRows()})`);
    const round: Round = { m: {}, pairs: {} };
    for (const { key } of STEPS) {
      if (SKIP.has(key) || Object.values(PAIRED).includes(key as 'read' | 'create')) continue;
      const app = PAIRED[key as keyof typeof PAIRED];
      if (!app || SKIP.has(app)) {
        const value = await run(key, DURATION);
        round.m[key] = value;
        failures += value.failed;
        console.log(line(step(key).label, value));
        continue;
      }
      const base: Measured[] = [];
      const mine: Measured[] = [];
      const seen = new Set<string>();
      for (let i = 0; i < SLICES; i++) {
        base.push(await run(key, DURATION / SLICES));
        const slice = app === 'read' ? await autovacuumDuring(run(app, DURATION / SLICES)) : { value: await run(app, DURATION / SLICES), seen: [] };
        mine.push(slice.value);
        for (const q of slice.seen) seen.add(q);
      }
      round.m[key] = combine(base);
      round.m[app] = combine(mine);
      round.pairs[app] = mine.map((x, i) => x.rps / base[i]!.rps);
      failures += round.m[key].failed + round.m[app].failed;
      console.log(line(step(key).label, round.m[key]));
      console.log(line(step(app).label, round.m[app], [...seen]));
      console.log(`      slice pairs ${app} / ${key}: ${round.pairs[app].map((x) => x.toFixed(2)).join(' ')}`);
      if (opts['slice-detail']) base.forEach((b, i) => console.log(`${sliceLine(key, b)}\n${sliceLine(app, mine[i]!)}`));
    }
    rounds.push(round);
    const { m } = round;
    const rps = (a: StepKey, b: StepKey) => (m[a] && m[b] ? (m[a].rps / m[b].rps).toFixed(2) : '–');
    console.log(
      `  => read / batched bare ${ratio(round, 'read').toFixed(2)} (p99 ${m.read && m.batched ? (m.read.p99 / Math.max(m.batched.p99, 0.001)).toFixed(2) : '–'} ×), ` +
        `read / HTTP ceiling ${rps('read', 'ceiling')}, create / bare transaction ${ratio(round, 'create').toFixed(2)}`,
    );
  }
} finally {
  await stats.end();
  const children = [...new Set([child, baselines])];
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => once(c, 'exit')));
  await db.close();
}

const reads = rounds.map((r) => ratio(r, 'read'));
const creates = rounds.map((r) => ratio(r, 'create'));
const spread = (xs: number[]) => (Math.max(...xs) - Math.min(...xs)) / Math.max(...xs);
const verdicts = [
  [`read ≥ ${READ_TARGET} × the batched bare route in every round`, Math.min(...reads) >= READ_TARGET, reads],
  [`read's rounds within ${ROUND_SPREAD * 100} % of one another`, spread(reads) <= ROUND_SPREAD, [spread(reads)]],
  [`create ≥ ${CREATE_TARGET} × the bare transaction in every round`, Math.min(...creates) >= CREATE_TARGET, creates],
] as const;
console.log('');
for (const [what, met, figures] of verdicts) console.log(`${met ? 'met   ' : 'MISSED'}  ${what}: ${figures.map((x) => x.toFixed(2)).join(' / ')}`);
console.log(`load average at the end ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}${failures > 0 ? `; ${failures} non-2xx or errors in all` : ''}`);
