import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openBenchDatabase } from './bench-database.js';
import { createBodies, drive as driveOne, type Measured, type Target } from './drive.js';
import { startBenchServers } from './start-servers.js';

/**
 * `npm run bench:cases [-- --duration 5 --rounds 3 --connections 32 --only <text> --profile --seed-assignments N --built]`
 * (the reads are also driven against the raised baselines of bench/batched-baseline.ts:
 * a bare route batched per event-loop turn, and the HTTP ceiling; each gets its own ratio)
 * (--only runs the cases whose name contains the text; --profile writes a
 * V8 CPU profile of the servers' process to bench/profiles/;
 * --seed-assignments fills the institution with N assignments first, with
 * scripts/seed-assignments.ts, to compare read and create latency on a large
 * table with a run on a fresh one; --built compiles the servers with tsc first,
 * as production runs them, bench/build-servers.ts.)
 *
 * On a real PostgreSQL (DATABASE_URL's server, else an embedded one started
 * in a temp dir), in a fresh database: the real app and a bare Fastify + pg
 * baseline (bench/baseline-server.ts) serve side by side from one child
 * process; autocannon drives each case against both, alternating app and
 * baseline round by round after a warm-up of each. Prints req/s, p50 and
 * p99 for both (means over the rounds) and the ratio app / baseline (the
 * median of the rounds' ratios).
 */
const { values: opts } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    warmup: { type: 'string', default: '2' },
    profile: { type: 'boolean', default: false },
    // Drive the app alone (no baseline rounds): with --profile, a profile of the app's work only.
    'app-only': { type: 'boolean', default: false },
    // The servers compiled by tsc first, as production runs them (bench/build-servers.ts), not through tsx.
    built: { type: 'boolean', default: false },
    only: { type: 'string' },
    'seed-assignments': { type: 'string', default: '0' },
  },
});
const SEED = Number(opts['seed-assignments']);
if (!Number.isInteger(SEED) || SEED < 0) throw new Error('--seed-assignments must be a whole number');
const DURATION = Number(opts.duration);
const ROUNDS = Number(opts.rounds);
const CONNECTIONS = Number(opts.connections);
const WARMUP = Number(opts.warmup);
for (const [name, v] of Object.entries({ duration: DURATION, rounds: ROUNDS, connections: CONNECTIONS, warmup: WARMUP })) {
  if (!Number.isInteger(v) || v < (name === 'warmup' ? 0 : 1)) throw new Error(`--${name} must be a whole number`);
}

interface Case {
  name: string;
  /** Minimum app / baseline req/s ratio; null: shown for information. */
  target: number | null;
  app: Target;
  baseline: Target;
  /** Further baselines driven in the same rounds (the batched bare route, the HTTP ceiling), each with its own ratio. */
  also?: { label: string; target: number | null; t: Target; p99Target?: number }[];
}

// ---- database -------------------------------------------------------------
const db = await openBenchDatabase('assay_bench');
const clusterDir = db.clusterDir;

async function cleanup() {
  await db.close();
}

// ---- servers --------------------------------------------------------------
const profileDir = path.resolve('bench/profiles');
const { child, ready } = await startBenchServers(db.url, { seedAssignments: SEED, profileDir: opts.profile ? profileDir : undefined, built: opts.built });

// ---- cases ----------------------------------------------------------------
const auth = { authorization: `Bearer ${ready.apiKey}` };
const json = { ...auth, 'content-type': 'application/json' };
let keyCounter = 0;
const createBody = createBodies(ready.testId);

const batched = (p: string): Target => ({ url: ready.batchedUrl, method: 'GET', path: p, headers: auth });
const allCases: Case[] = [
  {
    name: 'GET /tests (3 published, with total)',
    target: 0.9,
    app: { url: ready.appUrl, method: 'GET', path: '/api/partner/v1/tests', headers: auth },
    baseline: { url: ready.baselineUrl, method: 'GET', path: '/tests', headers: auth },
    also: [
      { label: 'vs batched bare', target: 0.7, t: batched('/tests') },
      { label: 'vs HTTP ceiling', target: null, t: batched('/ceiling/tests') },
    ],
  },
  {
    name: 'GET /assignments/{id}',
    target: 0.9,
    app: { url: ready.appUrl, method: 'GET', path: `/api/partner/v1/assignments/${ready.assignmentId}`, headers: auth },
    baseline: { url: ready.baselineUrl, method: 'GET', path: `/assignments/${ready.assignmentId}`, headers: auth },
    also: [
      { label: 'vs batched bare', target: 0.7, t: batched(`/assignments/${ready.assignmentId}`), p99Target: 1.5 },
      { label: 'vs HTTP ceiling', target: null, t: batched(`/ceiling/assignments/${ready.assignmentId}`) },
    ],
  },
  {
    name: 'POST /assignments',
    target: 0.9,
    app: { url: ready.appUrl, method: 'POST', path: '/api/partner/v1/assignments', headers: json, next: createBody },
    baseline: { url: ready.baselineUrl, method: 'POST', path: '/assignments', headers: json, next: createBody },
  },
  {
    // The same read again, once the creates above have grown the table (tens of thousands of rows, not
    // yet analyzed) under prepared statements planned while it held one row: reads must stay as fast.
    name: 'GET /assignments/{id} after creates',
    target: 0.9,
    app: { url: ready.appUrl, method: 'GET', path: `/api/partner/v1/assignments/${ready.assignmentId}`, headers: auth },
    baseline: { url: ready.baselineUrl, method: 'GET', path: `/assignments/${ready.assignmentId}`, headers: auth },
  },
  {
    // Not against the baseline: the whole app against itself without the staff portal's routes (ASSAY_PORTAL=off),
    // so the ratio is what serving the portal from the same process costs a partner read (target: unchanged).
    name: 'GET /assignments/{id} vs no portal',
    target: 0.95,
    app: { url: ready.appUrl, method: 'GET', path: `/api/partner/v1/assignments/${ready.assignmentId}`, headers: auth },
    baseline: { url: ready.noPortalUrl, method: 'GET', path: `/api/partner/v1/assignments/${ready.assignmentId}`, headers: auth },
  },
  {
    name: 'POST /assignments + Idempotency-Key',
    target: null,
    app: {
      url: ready.appUrl,
      method: 'POST',
      path: '/api/partner/v1/assignments',
      headers: json,
      next: () => ({ ...createBody(), headers: { 'idempotency-key': `bench-${process.pid}-${keyCounter++}` } }),
    },
    baseline: { url: ready.baselineUrl, method: 'POST', path: '/assignments', headers: json, next: createBody },
  },
];

// A case's whole name picks that case alone; otherwise every case whose name contains the text.
const exact = allCases.filter((c) => c.name === opts.only);
const cases = exact.length > 0 ? exact : allCases.filter((c) => !opts.only || c.name.includes(opts.only));
if (cases.length === 0) throw new Error(`--only "${opts.only}" matches no case`);

const drive = (t: Target, seconds: number) => driveOne(child, t, { seconds, connections: CONNECTIONS, clusterDir });

function combine(runs: Measured[]): Measured {
  const mean = (f: (m: Measured) => number) => runs.reduce((s, m) => s + f(m), 0) / runs.length;
  return {
    rps: mean((m) => m.rps),
    p50: mean((m) => m.p50),
    p99: mean((m) => m.p99),
    cpuUs: mean((m) => m.cpuUs),
    sysUs: mean((m) => m.sysUs),
    syscalls: runs[0]!.syscalls === null ? null : { reads: mean((m) => m.syscalls!.reads), writes: mean((m) => m.syscalls!.writes) },
    pgUs: runs[0]!.pgUs === null ? null : mean((m) => m.pgUs!),
    gcMs: mean((m) => m.gcMs),
    heapMb: mean((m) => m.heapMb),
    failed: runs.reduce((s, m) => s + m.failed, 0),
    idlePct: runs[0]!.idlePct === null ? null : mean((m) => m.idlePct!),
    stealPct: runs[0]!.stealPct === null ? null : mean((m) => m.stealPct!),
  };
}

const cpu = os.cpus();
const header = [
  `Assay bench: ${ROUNDS} x ${DURATION} s per server and case (after ${WARMUP} s warm-up each), ${CONNECTIONS} connections, 127.0.0.1`,
  `machine: ${cpu.length} x ${cpu[0]?.model.trim()}, ${Math.round(os.totalmem() / 2 ** 30)} GB, Node ${process.version}, ` +
    `PostgreSQL ${db.version} (${db.embedded ? 'embedded, temp dir' : 'DATABASE_URL server'}); app logs at warn, baseline silent` +
    (SEED > 0 ? `; ${SEED.toLocaleString('en-US')} assignments seeded first` : ''),
];
console.log(header.join('\n'));

interface Row {
  c: Case;
  label: string;
  target: number | null;
  p99Target?: number;
  app: Measured;
  base: Measured;
  ratio: number;
  spread: readonly [number, number];
}
const rows: Row[] = [];
/** The median of each round's pair ratio, and the range. */
function pairRatio(appRuns: Measured[], baseRuns: Measured[]): { ratio: number; spread: readonly [number, number] } {
  const pairRatios = appRuns.map((a, i) => a.rps / baseRuns[i]!.rps).sort((x, y) => x - y);
  const mid = pairRatios.length / 2;
  const ratio = pairRatios.length % 2 ? pairRatios[Math.floor(mid)]! : (pairRatios[mid - 1]! + pairRatios[mid]!) / 2;
  return { ratio, spread: [pairRatios[0]!, pairRatios.at(-1)!] as const };
}
try {
  for (const c of cases) {
    const others = opts['app-only'] ? [] : [{ label: '', target: c.target, t: c.baseline, p99Target: undefined as number | undefined }, ...(c.also ?? [])];
    if (WARMUP > 0) {
      await drive(c.app, WARMUP);
      for (const o of others) await drive(o.t, WARMUP);
    }
    const appRuns: Measured[] = [];
    const baseRuns: Measured[][] = others.map(() => []);
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate who goes first, so neither always runs on a warmer (or fuller) database.
      if (r % 2 === 0) appRuns.push(await drive(c.app, DURATION));
      for (const [i, o] of others.entries()) baseRuns[i]!.push(await drive(o.t, DURATION));
      if (r % 2 === 1) appRuns.push(await drive(c.app, DURATION));
    }
    if (opts['app-only']) console.log(`  ${c.name}: app ${Math.round(combine(appRuns).rps)} req/s, node ${Math.round(combine(appRuns).cpuUs)} µs per request`);
    // The ratio is the median of each round's pair: a pair runs in the same round, so a load spike from
    // outside the benchmark hits both sides of it alike, and one disturbed pair cannot drag the median.
    for (const [i, o] of others.entries()) {
      rows.push({ c, label: o.label, target: o.target, p99Target: o.p99Target, app: combine(appRuns), base: combine(baseRuns[i]!), ...pairRatio(appRuns, baseRuns[i]!) });
    }
    console.log(`  done: ${c.name}`);
  }
} finally {
  child.kill('SIGTERM');
  await once(child, 'exit');
  await cleanup();
}

const pad = (s: string | number, n: number) => String(s).padStart(n);
const f1 = (n: number) => n.toFixed(1);
console.log('');
console.log(
  `${'case'.padEnd(38)}${pad('app req/s', 11)}${pad('p50', 7)}${pad('p99', 7)}${pad('base req/s', 12)}${pad('p50', 7)}${pad('p99', 7)}${pad('ratio', 8)}  target`,
);
let missed = 0;
for (const { c, label, target, p99Target, app, base, ratio, spread } of rows) {
  const verdict = target === null ? '(info)' : ratio >= target ? `>= ${target} met` : `>= ${target} MISSED`;
  if (target !== null && ratio < target) missed++;
  const name = label ? `  ${label}` : c.name;
  console.log(
    `${name.padEnd(38)}${pad(Math.round(app.rps), 11)}${pad(f1(app.p50), 7)}${pad(f1(app.p99), 7)}` +
      `${pad(Math.round(base.rps), 12)}${pad(f1(base.p50), 7)}${pad(f1(base.p99), 7)}${pad(ratio.toFixed(2), 8)}  ${verdict}` +
      (ROUNDS > 1 ? `  (rounds ${spread[0].toFixed(2)}–${spread[1].toFixed(2)})` : ''),
  );
  if (p99Target !== undefined) {
    const p99Ratio = app.p99 / Math.max(base.p99, 0.001);
    if (p99Ratio > p99Target) missed++;
    console.log(`    p99 app / ${label.replace('vs ', '')}: ${p99Ratio.toFixed(2)} (target <= ${p99Target} ${p99Ratio <= p99Target ? 'met' : 'MISSED'})`);
  }
  if (app.failed + base.failed > 0) console.log(`  ! non-2xx or errors: app ${app.failed}, baseline ${base.failed}`);
}
console.log(`\nCPU per request in µs: the servers' Node process${clusterDir ? ', and the embedded PostgreSQL' : ''}`);
const us = (n: number | null) => (n === null ? '' : pad(Math.round(n), 6));
for (const { c, label, app, base } of rows) {
  console.log(
    `  ${(label ? `  ${label}` : c.name).padEnd(38)} app node ${us(app.cpuUs)}${clusterDir ? ` pg ${us(app.pgUs)}` : ''}   ` +
      `baseline node ${us(base.cpuUs)}${clusterDir ? ` pg ${us(base.pgUs)}` : ''}`,
  );
}
console.log(`\nlatencies in ms; ${missed === 0 ? 'all targets met' : `${missed} target(s) missed`}`);
if (opts.profile) console.log(`CPU profile of the servers' process: ${profileDir}`);
