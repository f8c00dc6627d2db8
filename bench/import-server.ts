import { Session } from 'node:inspector';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { createPool } from '../src/platform/db.js';
import { systemClock } from '../src/platform/clock.js';
import { migrate } from '../src/platform/migrate.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { createApiKey } from '../src/modules/institutions/api-keys.js';
import { createTest, publishTest } from '../src/modules/catalog/tests-service.js';
import { closeWorkerPool } from '../src/platform/worker-pool/shared-pool.js';
import { buildServer, serverContext } from '../src/server.js';
import { settleHeap, settleHeapOnceReady } from '../src/platform/settle-heap.js';
import { BENCH_QUESTIONS } from './import-500-questions.js';
import { benchAppConfig } from './bench-database.js';

/**
 * The server side of bench/import-500.ts's second part, in a process of its
 * own started with the product's V8 flags: it serves as `npm start` does,
 * its heap holding nothing of the bench's first part (nine packages parsed
 * on the bench's own loop) and its loop not shared with the partner reading
 * and the admin importing. Seeds one institution with 20 published tests,
 * settles the heap (src/main.ts does the same), listens, and says so over
 * IPC. Asked `settle`, it settles the heap again (after the bench's warm-up
 * import); asked `monitor`, it measures its longest event-loop block until
 * asked `report`. Asked `sample-survivors`, it starts V8's sampling heap
 * profiler keeping only objects that outlived a young collection
 * (bench/survivors.ts), and answers the profile when asked `sampled`.
 */
export interface ImportServerReady {
  url: string;
  apiKey: string;
  adminToken: string;
}

const [databaseUrl] = process.argv.slice(2);
if (!databaseUrl || !process.send) throw new Error('bench/import-server.ts is started by bench/import-500.ts');

const pool = createPool(databaseUrl, 10);
await migrate(pool);
const config = benchAppConfig(databaseUrl);
const app = await buildServer(serverContext({ config, pool, clock: systemClock }), { logger: false });
const inst = await createInstitution(pool, { name: 'Bench', callbackDomains: ['bench.example'] });
const { apiKey } = await createApiKey(pool, inst.institutionId, 'bench');
for (let i = 0; i < 20; i++) {
  const t = await createTest(pool, { title: `T${i}`, description: '', durationMinutes: 30, proctoring: 'none', marking: 'auto', resultVisibility: 'immediate', questions: [BENCH_QUESTIONS[0]!] });
  await publishTest(pool, t.testId, inst.institutionId);
}
// `settle-before-ready` (bench/cold-start.ts): collected before Fastify compiles the routes' schemas, as src/main.ts
// did before 4 December 2026, to compare with the order it has now.
if (process.argv[3] === 'settle-before-ready') settleHeap();
else await settleHeapOnceReady(app);
await app.listen({ port: 0, host: '127.0.0.1' });

let histogram: IntervalHistogram | null = null;

/**
 * With `--where` (bench/import-500.ts): when each of the partner's reads (the reader's `x-bench-read` id)
 * reached the server and when its answer left, and every stall of this process's loop over 4 ms (a 1 ms
 * timer firing late), all on the clock of the machine (performance.timeOrigin + now), as the reader's are.
 */
const reads = new Map<number, [number, number]>();
const stalls: Array<[number, number]> = [];
function traceReads(): void {
  const now = () => performance.timeOrigin + performance.now();
  app.server.on('request', (req, res) => {
    const id = Number(req.headers['x-bench-read'] ?? -1);
    if (id < 0) return;
    const arrived = now();
    res.on('finish', () => reads.set(id, [arrived, now()]));
  });
  let last = performance.now();
  setInterval(() => {
    const t = performance.now();
    if (t - last > 4) stalls.push([performance.timeOrigin + last, t - last - 1]);
    last = t;
  }, 1).unref();
}

let inspector: Session | null = null;
process.on('message', (m) => {
  if (m === 'sample-survivors') {
    inspector = new Session();
    inspector.connect();
    // Objects a young collection frees are dropped from the samples; those only a full collection frees are kept.
    const sampling = { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false };
    inspector.post('HeapProfiler.enable', () => inspector!.post('HeapProfiler.startSampling', sampling, () => process.send!({ sampling: true })));
  } else if (m === 'sampled') {
    inspector?.post('HeapProfiler.stopSampling', (err, r) => process.send!({ profile: err ? null : r.profile }));
  } else if (m === 'trace') {
    traceReads();
  } else if (m === 'monitor') {
    histogram = monitorEventLoopDelay({ resolution: 1 });
    histogram.enable();
  } else if (m === 'settle') {
    // After the bench's warm-up import: its garbage is collected now, not by the reads measured unloaded.
    process.send!({ settled: settleHeap() });
  } else if (m === 'report') {
    // The histogram records a block when the loop next runs its timer: let it turn before reading it.
    setTimeout(() => {
      histogram?.disable();
      process.send!({ maxBlockMs: (histogram?.max ?? 0) / 1e6, reads: [...reads], stalls });
    }, 20);
  } else if (m === 'stop') {
    void (async () => {
      await app.close();
      await pool.end();
      await closeWorkerPool();
      process.exit(0);
    })();
  }
});
process.send({ url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, apiKey, adminToken: config.adminToken! } satisfies ImportServerReady);
