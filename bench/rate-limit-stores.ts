import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { createPool } from '../src/platform/db.js';
import { migrate } from '../src/platform/migrate.js';
import { createApiKey } from '../src/modules/institutions/api-keys.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { createTest, publishTest } from '../src/modules/catalog/tests-service.js';
import { DEMO_TESTS } from '../src/demo/demo-tests.js';
import { openBenchDatabase } from './bench-database.js';

/**
 * `npx tsx bench/rate-limit-stores.ts [--rounds 3 --seconds 5 --connections 10 --hammer 10]`
 *
 * The per-key rate limit's three stores (ASSAY_RATE_LIMIT_STORE), each in
 * API processes of their own (bench/rate-limit-server.ts, its own pool) on
 * one fresh database:
 *
 * 1. Cost: the cheapest authenticated partner call (`GET /tests`) against
 *    one process per store, with a limit too high to refuse anything,
 *    driven by autocannon in alternating rounds; req/s and the process's
 *    CPU per request, each store as a ratio to `memory` (no I/O: the
 *    baseline) in the same round, medians over the rounds.
 * 2. Meaning: per store, three processes with a 5/s key (burst 5) are
 *    hammered at once (`--connections` loops each, for `--hammer` seconds);
 *    the admitted rate is the 200s over the time, against the 5/s the key
 *    should get (one bucket: at most 5 × T + 5).
 */
const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    hammer: { type: 'string', default: '10' },
  },
});
const ROUNDS = Number(opts.rounds);
const SECONDS = Number(opts.seconds);
const CONNECTIONS = Number(opts.connections);
const HAMMER = Number(opts.hammer);
for (const [k, v] of Object.entries({ rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS, hammer: HAMMER })) {
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${k} must be a whole number`);
}
const STORES = ['memory', 'postgres', 'batched'] as const;
type Store = (typeof STORES)[number];

const db = await openBenchDatabase('assay_ratelimit');
const pool = createPool(db.url, 2);
await migrate(pool);
const institution = await createInstitution(pool, { name: 'Rate Limit University', callbackDomains: ['bench.example'] });
for (const input of DEMO_TESTS) await publishTest(pool, (await createTest(pool, input)).testId, institution.institutionId);
/** A key per use, so no store's bucket (two share a table) carries over into another's run. */
const newKey = async (label: string) => (await createApiKey(pool, institution.institutionId, label)).apiKey;

const children = new Set<ChildProcess>();
async function startServer(store: Store, perSecond: number, burst: number): Promise<{ url: string; child: ChildProcess }> {
  const child = fork(path.join(import.meta.dirname, 'rate-limit-server.ts'), [db.url, store, String(perSecond), String(burst)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.add(child);
  const [ready] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(() => {
      throw new Error('a rate-limit server exited before it was ready');
    }),
  ])) as [{ url: string }];
  return { url: ready.url, child };
}
async function stopServer(child: ChildProcess): Promise<void> {
  children.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}
async function cpuUs(child: ChildProcess): Promise<number> {
  child.send('cpu');
  const [m] = (await once(child, 'message')) as [{ cpu: NodeJS.CpuUsage }];
  return m.cpu.user + m.cpu.system;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

try {
  // ---- 1. cost per request -------------------------------------------------------------------
  const servers = new Map<Store, { url: string; child: ChildProcess }>();
  for (const s of STORES) servers.set(s, await startServer(s, 1_000_000, 1_000_000));
  const auth = { authorization: `Bearer ${await newKey('cost')}` };
  const drive = async (s: Store, seconds: number) => {
    const { url, child } = servers.get(s)!;
    const cpu0 = await cpuUs(child);
    const r = await autocannon({ url: `${url}/api/partner/v1/tests`, connections: CONNECTIONS, duration: seconds, headers: auth });
    const cpu = (await cpuUs(child)) - cpu0;
    if (r.non2xx + r.errors > 0) throw new Error(`${s}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
    return { rps: r.requests.total / (r.duration || seconds), cpuPerReq: cpu / Math.max(1, r.requests.total), p99: r.latency.p99 };
  };
  for (const s of STORES) await drive(s, 1); // warm-up
  const runs = new Map<Store, Array<{ rps: number; cpuPerReq: number; p99: number }>>(STORES.map((s) => [s, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate the order, so no store always runs first after a rest.
    for (const s of round % 2 === 0 ? STORES : [...STORES].reverse()) runs.get(s)!.push(await drive(s, SECONDS));
  }
  for (const { child } of servers.values()) await stopServer(child);

  // ---- 2. the admitted rate of a 5/s key through three processes ------------------------------
  const admitted = new Map<Store, { ok: number; refused: number; other: number; seconds: number }>();
  for (const s of STORES) {
    const three = await Promise.all([0, 1, 2].map(() => startServer(s, 5, 5)));
    const headers = { authorization: `Bearer ${await newKey(`hammer-${s}`)}` };
    const counts = { ok: 0, refused: 0, other: 0, seconds: 0 };
    const started = performance.now();
    await Promise.all(
      three.flatMap(({ url }) =>
        Array.from({ length: CONNECTIONS }, async () => {
          while (performance.now() - started < HAMMER * 1000) {
            const res = await fetch(`${url}/api/partner/v1/tests`, { headers });
            await res.arrayBuffer();
            if (res.status === 200) counts.ok++;
            else if (res.status === 429) counts.refused++;
            else counts.other++;
          }
        }),
      ),
    );
    counts.seconds = (performance.now() - started) / 1000;
    admitted.set(s, counts);
    for (const { child } of three) await stopServer(child);
  }

  // ---- report ----------------------------------------------------------------------------------
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  console.log(`Rate-limit stores: PostgreSQL ${db.version} (${db.embedded ? 'embedded' : 'DATABASE_URL'}), ${os.cpus().length} CPUs, node ${process.version}, load average ${load}`);
  console.log(`\n1. GET /api/partner/v1/tests, one API process per store, ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${SECONDS} s (medians; ratios to memory per round)`);
  console.log('| Store | req/s | ratio to memory | CPU per request | CPU ratio | p99 |');
  console.log('|---|---:|---:|---:|---:|---:|');
  const mem = runs.get('memory')!;
  for (const s of STORES) {
    const r = runs.get(s)!;
    const ratio = median(r.map((x, i) => x.rps / mem[i]!.rps));
    const cpuRatio = median(r.map((x, i) => x.cpuPerReq / mem[i]!.cpuPerReq));
    console.log(`| ${s} | ${fmt(median(r.map((x) => x.rps)))} | ${ratio.toFixed(2)} | ${fmt(median(r.map((x) => x.cpuPerReq)))} µs | ${cpuRatio.toFixed(2)} | ${median(r.map((x) => x.p99))} ms |`);
  }
  console.log(`\n2. A key limited to 5/s (burst 5) hammered through three API processes at once, ${CONNECTIONS} loops each, ${HAMMER} s`);
  console.log('| Store | admitted | admitted/s | one bucket allows (5 × T + 5) | refused | other |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const s of STORES) {
    const c = admitted.get(s)!;
    console.log(`| ${s} | ${c.ok} | ${(c.ok / c.seconds).toFixed(1)} | ${Math.floor(5 * c.seconds + 5)} | ${c.refused} | ${c.other} |`);
  }
} finally {
  await Promise.all([...children].map((c) => stopServer(c)));
  await pool.end();
  await db.close();
}
