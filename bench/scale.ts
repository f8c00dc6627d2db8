import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { createPool } from '../src/platform/db.js';
import { randomBase62 } from '../src/platform/ids.js';
import { migrate } from '../src/platform/migrate.js';
import { createApiKey } from '../src/modules/institutions/api-keys.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { createTest, publishTest } from '../src/modules/catalog/tests-service.js';
import { DEMO_TESTS } from '../src/demo/demo-tests.js';
import { openBenchDatabase } from './bench-database.js';
import { seedAssignments } from '../scripts/seed-assignments.js';
import { freePort, processCpuUs, untilReady } from './processes.js';

const cpuUs = (pid: number) => processCpuUs(pid) ?? 0;

/**
 * `npx tsx bench/scale.ts [--api 2 --workers 2 --duration 5 --connections 10 --store memory|batched|postgres --seed-assignments N]`
 *
 * Assay as deployed: `--api` API processes (src/main.ts, ASSAY_RUN_WORKER=0)
 * and `--workers` worker processes (src/worker-main.ts), each its own Node
 * process, on one fresh database (DATABASE_URL's server, else an embedded
 * one), migrated first so the processes only check (ASSAY_MIGRATE=check).
 * For each partner case, autocannon drives one API process alone, then every
 * API process at once (`--connections` each); the ratio per process is its
 * req/s with the others busy over the one-process figure, and the CPU per
 * request is read from /proc. The create case sets `dueAt` a few seconds
 * ahead, so the workers meanwhile expire those assignments and deliver
 * `assignment.expired` to a webhook receiver here; the report counts what
 * each part did. On one machine the processes share its cores: the ratios
 * say how the work divides, not what more machines would add.
 */
const { values: opts } = parseArgs({
  options: {
    api: { type: 'string', default: '2' },
    workers: { type: 'string', default: '2' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    store: { type: 'string', default: 'memory' },
    'seed-assignments': { type: 'string', default: '0' },
  },
});
const API = Number(opts.api);
const WORKERS = Number(opts.workers);
const DURATION = Number(opts.duration);
const CONNECTIONS = Number(opts.connections);
const SEED = Number(opts['seed-assignments']);
for (const [k, v] of Object.entries({ api: API, workers: WORKERS, duration: DURATION, connections: CONNECTIONS })) {
  if (!Number.isInteger(v) || v < (k === 'workers' ? 0 : 1)) throw new Error(`--${k} must be a whole number`);
}
if (opts.store !== 'memory' && opts.store !== 'batched' && opts.store !== 'postgres') throw new Error('--store is memory, batched or postgres');

// ---- database and seed ------------------------------------------------------------------------
const db = await openBenchDatabase('assay_scale');
const pool = createPool(db.url, 4);
await migrate(pool);
const institution = await createInstitution(pool, { name: 'Scale University', callbackDomains: ['bench.example'] });
const { apiKey } = await createApiKey(pool, institution.institutionId, 'scale');
const test = await createTest(pool, DEMO_TESTS[0]!);
await publishTest(pool, test.testId, institution.institutionId);
for (const extra of DEMO_TESTS.slice(1)) await publishTest(pool, (await createTest(pool, extra)).testId, institution.institutionId);
if (SEED > 0) await seedAssignments(pool, { institutionId: institution.institutionId, testId: test.testId }, { count: SEED });

// ---- webhook receiver (the workers' deliveries) -------------------------------------------------
let delivered = 0;
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    delivered++;
    res.writeHead(204).end();
  });
});
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
const receiverPort = (receiver.address() as net.AddressInfo).port;

// ---- processes ------------------------------------------------------------------------------------
const env = {
  ...process.env,
  DATABASE_URL: db.url,
  ASSAY_ADMIN_TOKEN: `scale-${randomBase62(32)}`,
  ASSAY_SECRET: randomBase62(48),
  ASSAY_MIGRATE: 'check',
  ASSAY_ALLOW_INSECURE_URLS: '1',
  ASSAY_RATE_LIMIT_PER_SECOND: '1000000',
  ASSAY_RATE_LIMIT_BURST: '1000000',
  ASSAY_RATE_LIMIT_STORE: opts.store,
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
};
const children: ChildProcess[] = [];
function start(entry: string, extra: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, '..', 'src', entry)], {
    env: { ...env, ...extra },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}
async function stopAll(): Promise<void> {
  await Promise.all(
    children.map(async (c) => {
      if (c.exitCode !== null || c.signalCode !== null) return;
      c.kill('SIGTERM');
      await once(c, 'exit');
    }),
  );
}

interface ApiProcess {
  url: string;
  child: ChildProcess;
}
const apis: ApiProcess[] = [];
try {
  for (let i = 0; i < API; i++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    apis.push({ url, child: start('main.ts', { PORT: String(port), PUBLIC_BASE_URL: url, ASSAY_RUN_WORKER: '0' }) });
  }
  const workers = Array.from({ length: WORKERS }, () => start('worker-main.ts', {}));
  for (const a of apis) await untilReady(a.url);

  const auth = { authorization: `Bearer ${apiKey}` };
  const endpoint = await fetch(`${apis[0]!.url}/api/partner/v1/webhook-endpoints`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/hooks`, eventTypes: ['assignment.expired'] }),
  });
  if (endpoint.status !== 201) throw new Error(`registering the webhook endpoint: ${endpoint.status} ${await endpoint.text()}`);
  const created = await fetch(`${apis[0]!.url}/api/partner/v1/assignments`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ externalUserId: 'scale-reader', testId: test.testId, user: { email: 'reader@bench.example' }, callbackUrl: 'https://bench.example/r' }),
  });
  const assignmentId = ((await created.json()) as { assignmentId: string }).assignmentId;

  let n = 0;
  const cases = [
    { name: 'GET /tests', method: 'GET', path: '/api/partner/v1/tests' },
    { name: 'GET /assignments/{id}', method: 'GET', path: `/api/partner/v1/assignments/${assignmentId}` },
    {
      name: 'POST /assignments (dueAt +5 s)',
      method: 'POST',
      path: '/api/partner/v1/assignments',
      body: () =>
        JSON.stringify({
          externalUserId: `student-${n++ % 1000}`,
          testId: test.testId,
          user: { email: 'student@bench.example' },
          callbackUrl: 'https://bench.example/return',
          dueAt: new Date(Date.now() + 5000).toISOString(),
        }),
    },
  ] as const;

  const drive = async (url: string, c: (typeof cases)[number], seconds: number) => {
    const body = 'body' in c ? c.body : null;
    const r = await autocannon({
      url,
      connections: CONNECTIONS,
      duration: seconds,
      requests: [
        {
          method: c.method,
          path: c.path,
          headers: { ...auth, ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { setupRequest: (req: autocannon.Request) => ({ ...req, body: body() }) } : {}),
        },
      ],
    });
    return { rps: r.requests.total / (r.duration || seconds), total: r.requests.total, p50: r.latency.p50, p99: r.latency.p99, failed: r.non2xx + r.errors };
  };

  const lines: string[] = [];
  for (const c of cases) {
    await Promise.all(apis.map((a) => drive(a.url, c, 1))); // warm-up, every process
    const alone = await drive(apis[0]!.url, c, DURATION);
    const cpu0 = apis.map((a) => cpuUs(a.child.pid!));
    const together = await Promise.all(apis.map((a) => drive(a.url, c, DURATION)));
    const cpu = apis.map((a, i) => (cpuUs(a.child.pid!) - cpu0[i]!) / Math.max(1, together[i]!.total));
    const sum = together.reduce((s, r) => s + r.rps, 0);
    lines.push(
      `${c.name.padEnd(30)} alone ${fmt(alone.rps).padStart(7)} req/s p50 ${alone.p50} ms | ` +
        together.map((r, i) => `api ${i + 1}: ${fmt(r.rps)} req/s (ratio ${(r.rps / alone.rps).toFixed(2)}, p50 ${r.p50} / p99 ${r.p99} ms, ${fmt(cpu[i]!)} µs CPU/req)`).join('; ') +
        ` | together ${fmt(sum)} req/s = ${(sum / alone.rps).toFixed(2)} x one process` +
        (alone.failed + together.reduce((s, r) => s + r.failed, 0) > 0 ? ' | ! non-2xx or errors' : ''),
    );
  }

  // The last created assignments expire 5 s after they were made; let the workers finish with them.
  const expiredBy = async () => (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM assignments WHERE status = 'expired'`)).rows[0]!.n;
  const dueBy = async () =>
    (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM assignments WHERE due_at IS NOT NULL AND due_at <= now() AND status = 'assigned'`)).rows[0]!.n;
  for (let i = 0; i < 60 && (await dueBy()) > 0; i++) await new Promise((r) => setTimeout(r, 500));
  await new Promise((r) => setTimeout(r, 6000));
  for (let i = 0; i < 60 && (await dueBy()) > 0; i++) await new Promise((r) => setTimeout(r, 500));
  const expired = await expiredBy();
  for (let i = 0; i < 60 && delivered < expired; i++) await new Promise((r) => setTimeout(r, 500));

  const cpu = os.cpus();
  process.stdout.write(
    [
      `Assay scale: ${API} API process(es), ${WORKERS} worker process(es), one database; ${CONNECTIONS} connections per API process, ${DURATION} s per run`,
      `machine: ${cpu.length} x ${cpu[0]?.model.trim()}, Node ${process.version}, PostgreSQL ${db.version} (${db.embedded ? 'embedded' : 'DATABASE_URL server'}), ` +
        `rate-limit store ${opts.store}${SEED > 0 ? `, ${SEED.toLocaleString('en-US')} assignments seeded` : ''}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`,
      '',
      ...lines,
      '',
      `workers: ${expired.toLocaleString('en-US')} assignments expired by the job queue, ${delivered.toLocaleString('en-US')} assignment.expired webhooks received` +
        (WORKERS > 0 ? `; worker CPU ${workers.map((w) => `${fmt(cpuUs(w.pid!) / 1000)} ms`).join(', ')}` : ''),
      '',
    ].join('\n'),
  );
} finally {
  await stopAll();
  receiver.close();
  await pool.end();
  await db.close();
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
