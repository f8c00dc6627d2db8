import inspector from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { createPool } from '../src/platform/db.js';
import { systemClock } from '../src/platform/clock.js';
import { settleHeap } from '../src/platform/settle-heap.js';
import { migrate } from '../src/platform/migrate.js';
import { createApiKey } from '../src/modules/institutions/api-keys.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { createTest, findPublishedTest, publishTest } from '../src/modules/catalog/tests-service.js';
import { benchAppConfig } from './bench-database.js';
import { DEMO_TESTS } from '../src/demo/demo-tests.js';
import { buildServer, serverContext, PARTNER_PREFIX } from '../src/server.js';
import { buildBaseline, type BaselineSeed } from './baseline-server.js';
import { buildBatchedBaseline } from './batched-baseline.js';
import { seedAssignments } from '../scripts/seed-assignments.js';

/**
 * The servers under load, in a child process of the bench so the load
 * generator does not share their event loop (bench/start-servers.ts): seeds
 * one institution (key, callback domain, the three demo tests, one
 * assignment), then serves the real app and the baselines on loopback ports,
 * each with its own pool of 10 connections (the app's default); all in one
 * process, or the app and the baselines in two.
 */
export interface ServersReady {
  appUrl: string;
  baselineUrl: string;
  /** The raised baselines (bench/batched-baseline.ts): batched per event-loop turn, and under /ceiling the app's answer bytes from memory. */
  batchedUrl: string;
  /** The same app with the staff portal left out (ASSAY_PORTAL=off): what the portal's routes cost the partner API. */
  noPortalUrl: string;
  apiKey: string;
  testId: string;
  assignmentId: string;
}

export const CALLBACK_URL = 'https://bench.example/return';

/** What the baselines need from the app's seed, handed to a baselines-only process (role `baselines`). */
export interface BaselinesSeed extends BaselineSeed {
  readBody: string;
  testsBody: string;
}

/**
 * `all`: every server in this one process (the default). `app`: the seed and the app only; its ready message
 * carries the baselines' seed for a second process started with `baselines`, which serves the bare and batched
 * baselines only. Apart, the app's heap, garbage and compiled code are its own, as in production, and a
 * baseline's run leaves nothing behind for the app's next one (bench/rounds.ts).
 */
type Role = 'all' | 'app' | 'baselines';
const databaseUrl = process.argv[2] ?? '';
const seedCount = Number(process.argv[3] ?? 0);
const role = (process.argv[4] ?? 'all') as Role;
if (!databaseUrl || !process.send) throw new Error('bench/servers.ts is started by bench/start-servers.ts');
if (!['all', 'app', 'baselines'].includes(role)) throw new Error(`bench/servers.ts: no role ${role}`);

const pools: pg.Pool[] = [];
const servers: FastifyInstance[] = [];
const pool = () => {
  const p = createPool(databaseUrl, 10);
  pools.push(p);
  return p;
};

async function startApp(): Promise<{ ready: Pick<ServersReady, 'appUrl' | 'noPortalUrl' | 'apiKey' | 'testId' | 'assignmentId'>; seed: BaselinesSeed }> {
  const appPool = pool();
  await migrate(appPool);
  const institution = await createInstitution(appPool, { name: 'Bench University', callbackDomains: ['bench.example'] });
  const { apiKey } = await createApiKey(appPool, institution.institutionId, 'bench');
  const testIds: string[] = [];
  for (const input of DEMO_TESTS) {
    const test = await createTest(appPool, input);
    await publishTest(appPool, test.testId, institution.institutionId);
    testIds.push(test.testId);
  }
  const testId = testIds[0]!;
  const version = (await findPublishedTest(appPool, institution.institutionId, testId))!;
  if (seedCount > 0) {
    // Before the servers connect: the cases then run against a table of this size (--seed-assignments).
    const seeded = await seedAssignments(appPool, { institutionId: institution.institutionId, testId }, { count: seedCount });
    process.stdout.write(`seeded ${seeded.assignments.toLocaleString('en-US')} assignments in ${seeded.seconds.toFixed(1)} s\n`);
  }

  const config = benchAppConfig(databaseUrl);
  const app = await buildServer(serverContext({ config, pool: appPool, clock: systemClock }));
  const noPortal = await buildServer(
    serverContext({ config: { ...config, operations: { ...config.operations, portal: false } }, pool: pool(), clock: systemClock }),
  );
  servers.push(app, noPortal);

  const created = await app.inject({
    method: 'POST',
    url: `${PARTNER_PREFIX}/assignments`,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    payload: { externalUserId: 'bench-reader', testId, user: { email: 'reader@bench.example' }, callbackUrl: CALLBACK_URL },
  });
  if (created.statusCode !== 201) throw new Error(`seeding an assignment failed: ${created.body}`);
  const assignmentId = created.json<{ assignmentId: string }>().assignmentId;

  // The HTTP ceiling serves the app's own answer bytes for the read and the listing.
  const auth = { authorization: `Bearer ${apiKey}` };
  const readBody = (await app.inject({ method: 'GET', url: `${PARTNER_PREFIX}/assignments/${assignmentId}`, headers: auth })).body;
  const testsBody = (await app.inject({ method: 'GET', url: `${PARTNER_PREFIX}/tests`, headers: auth })).body;
  const appUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  const noPortalUrl = await noPortal.listen({ port: 0, host: '127.0.0.1' });
  return {
    ready: { appUrl, noPortalUrl, apiKey, testId, assignmentId },
    seed: { institutionId: institution.institutionId, testId, testVersionId: version.testVersionId, readBody, testsBody },
  };
}

async function startBaselines(seed: BaselinesSeed): Promise<Pick<ServersReady, 'baselineUrl' | 'batchedUrl'>> {
  const { readBody, testsBody, ...baselineSeed } = seed;
  const baseline = buildBaseline(pool(), baselineSeed);
  const batched = buildBatchedBaseline(pool(), baselineSeed, { read: readBody, tests: testsBody });
  servers.push(baseline, batched);
  return { baselineUrl: await baseline.listen({ port: 0, host: '127.0.0.1' }), batchedUrl: await batched.listen({ port: 0, host: '127.0.0.1' }) };
}

if (role === 'baselines') {
  process.send(await startBaselines(JSON.parse(process.argv[5]!) as BaselinesSeed));
} else if (role === 'app') {
  const { ready, seed } = await startApp();
  // As src/main.ts does before it listens: the seed's garbage collected before the first request.
  settleHeap();
  process.send({ ...ready, seed });
} else {
  const { ready, seed } = await startApp();
  const baselines = await startBaselines(seed);
  settleHeap();
  process.send({ ...ready, ...baselines } satisfies ServersReady);
}
// CPU time of this process, asked for around each run: CPU per request, unlike req/s, barely moves when other work shares the machine.
// And the garbage collector's pauses and the heap, which show what a burst of work leaves behind (bench/rounds.ts).
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
}).observe({ entryTypes: ['gc'] });
process.on('message', (m) => {
  if (m === 'cpu') process.send!({ cpu: process.cpuUsage(), gcMs, heapUsed: process.memoryUsage().heapUsed });
  if (m === 'alloc-start' || m === 'alloc-stop') void allocationSampling(m).then((reply) => process.send!(reply));
});

/**
 * V8's sampling heap profiler, asked for through the inspector (bench/allocations.ts): every allocation
 * sampled, including what the garbage collector has since freed, which `--heap-prof` leaves out (it
 * reports what is still live). One sample per 1 KB allocated, at random.
 */
const inspectorSession = new inspector.Session();
async function allocationSampling(m: 'alloc-start' | 'alloc-stop'): Promise<{ allocations: unknown }> {
  if (m === 'alloc-start') {
    inspectorSession.connect();
    await inspectorSession.post('HeapProfiler.enable');
    // These two fields are in the DevTools protocol but not yet in Node's types.
    await inspectorSession.post('HeapProfiler.startSampling', {
      samplingInterval: 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    } as inspector.HeapProfiler.StartSamplingParameterType);
    return { allocations: 'started' };
  }
  const { profile } = await inspectorSession.post('HeapProfiler.stopSampling');
  inspectorSession.disconnect();
  return { allocations: profile };
}

async function stop() {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(pools.map((p) => p.end()));
  // The explicit exit also flushes a --cpu-prof profile.
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('disconnect', () => void stop());
