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
 * The servers start fresh (bench/servers.ts, no warm-up), then each round
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
  },
});
const DURATION = Number(opts.duration);
const ROUNDS = Number(opts.rounds);
const CONNECTIONS = Number(opts.connections);
for (const [name, v] of Object.entries({ duration: DURATION, rounds: ROUNDS, connections: CONNECTIONS })) {
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} must be a whole number`);
}
const READ_TARGET = 0.7;
const CREATE_TARGET = 0.9;
const ROUND_SPREAD = 0.1;

const load = os.loadavg();
const db = await openBenchDatabase('assay_rounds');
const { child, ready } = await startBenchServers(db.url);
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
  { key: 'read', label: 'Assay GET /assignments/{id}', t: get(ready.appUrl, `/api/partner/v1/assignments/${id}`) },
  { key: 'list', label: 'Assay GET /tests', t: get(ready.appUrl, '/api/partner/v1/tests') },
  { key: 'bareCreate', label: 'bare create (the bare transaction)', t: { url: ready.baselineUrl, method: 'POST', path: '/assignments', headers: json, next: createBody } },
  { key: 'create', label: 'Assay POST /assignments', t: { url: ready.appUrl, method: 'POST', path: '/api/partner/v1/assignments', headers: json, next: createBody } },
] as const satisfies readonly { key: string; label: string; t: Target }[];
type StepKey = (typeof STEPS)[number]['key'];

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
  `Assay bench, round by round: ${ROUNDS} rounds of ${STEPS.length} runs of ${DURATION} s, ${CONNECTIONS} connections, cold start (no warm-up)\n` +
    `machine: ${cpu.length} x ${cpu[0]?.model.trim()}, Node ${process.version}, PostgreSQL ${db.version} ` +
    `(${db.embedded ? 'embedded, temp dir' : 'DATABASE_URL server'}); load average at the start ${load.map((l) => l.toFixed(2)).join(' ')}`,
);

const pad = (s: string | number, n: number) => String(s).padStart(n);
const rounds: Record<StepKey, Measured>[] = [];
let failures = 0;
try {
  for (let r = 1; r <= ROUNDS; r++) {
    console.log(`\nround ${r}  (${await tableRows()})`);
    const m = {} as Record<StepKey, Measured>;
    for (const step of STEPS) {
      const run = drive(child, step.t, { seconds: DURATION, connections: CONNECTIONS, clusterDir: db.clusterDir });
      const { value, seen } = step.key === 'read' ? await autovacuumDuring(run) : { value: await run, seen: [] };
      m[step.key] = value;
      failures += value.failed;
      console.log(
        `  ${step.label.padEnd(36)}${pad(Math.round(value.rps), 8)} req/s  p50 ${pad(value.p50.toFixed(1), 5)}  p99 ${pad(value.p99.toFixed(1), 6)} ms` +
          `  node ${pad(Math.round(value.cpuUs), 4)} µs  gc ${pad(Math.round(value.gcMs), 5)} ms  heap ${pad(Math.round(value.heapMb), 4)} MB` +
          (value.failed > 0 ? `  ! ${value.failed} non-2xx or errors` : '') +
          (seen.length > 0 ? `\n      autovacuum during the read: ${seen.join('; ')}` : ''),
      );
    }
    rounds.push(m);
    const read = m.read.rps / m.batched.rps;
    console.log(
      `  => read / batched bare ${read.toFixed(2)} (p99 ${(m.read.p99 / Math.max(m.batched.p99, 0.001)).toFixed(2)} ×), ` +
        `read / HTTP ceiling ${(m.read.rps / m.ceiling.rps).toFixed(2)}, create / bare transaction ${(m.create.rps / m.bareCreate.rps).toFixed(2)}`,
    );
  }
} finally {
  await stats.end();
  child.kill('SIGTERM');
  await once(child, 'exit');
  await db.close();
}

const reads = rounds.map((m) => m.read.rps / m.batched.rps);
const creates = rounds.map((m) => m.create.rps / m.bareCreate.rps);
const spread = (xs: number[]) => (Math.max(...xs) - Math.min(...xs)) / Math.max(...xs);
const verdicts = [
  [`read ≥ ${READ_TARGET} × the batched bare route in every round`, Math.min(...reads) >= READ_TARGET, reads],
  [`read's rounds within ${ROUND_SPREAD * 100} % of one another`, spread(reads) <= ROUND_SPREAD, [spread(reads)]],
  [`create ≥ ${CREATE_TARGET} × the bare transaction in every round`, Math.min(...creates) >= CREATE_TARGET, creates],
] as const;
console.log('');
for (const [what, met, figures] of verdicts) console.log(`${met ? 'met   ' : 'MISSED'}  ${what}: ${figures.map((x) => x.toFixed(2)).join(' / ')}`);
console.log(`load average at the end ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}${failures > 0 ? `; ${failures} non-2xx or errors in all` : ''}`);
