import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import type { Question, SectionInput } from '../src/modules/catalog/schemas.js';
import { exportQti3 } from '../src/modules/catalog/interchange/qti-export.js';
import { importQtiPackage } from '../src/modules/catalog/interchange/qti-package.js';
import { readImport } from '../src/modules/catalog/interchange/import-service.js';
import { closeWorkerPool } from '../src/platform/worker-pool/shared-pool.js';
import { BENCH_QUESTIONS } from './import-500-questions.js';
import { openBenchDatabase } from './bench-database.js';
import type { ImportServerReady } from './import-server.js';
import { NODE_FLAGS } from '../bin/node-flags.js';

/**
 * `npm run bench:import -- [--items 500 --runs 3 --min-reads 3000 --slowest --where --http-only --profile DIR]`
 *
 * `ASSAY_WORKER_ISOLATION=process` runs the server's worker pool as processes (docs/import-export.md).
 *
 * Importing a generated QTI 3.0 package of 500 items (every type, in
 * sections with a pool), two ways:
 * 1. no database: the time to read and map the package, and the longest
 *    event-loop block (perf_hooks.monitorEventLoopDelay, 1 ms resolution),
 *    parsing on the event loop straight through (`yieldEveryMs: Infinity`),
 *    on the event loop yielding every 3 ms (what imports did before the
 *    worker pool), and on the worker pool (`readImport`, what the routes
 *    run: the loop only hands the bytes over);
 * 2. over HTTP with a database: POST /api/admin/v1/tests/import while a
 *    partner reads GET /api/partner/v1/tests 75 times a second, from a
 *    process of its own (bench/partner-reader.ts); the read's p50/p99
 *    unloaded and during the imports, each from about `min-reads` reads
 *    (40 s at the default 3,000): unloaded for as long, then at least `runs`
 *    imports, one after the other, and more until as many reads were taken
 *    during them. A p99 of 600 reads is their sixth slowest, which moved
 *    from 6.9 to 10.3 ms between identical runs (docs/performance.md).
 * Targets: import < 10 s, no event-loop block > 50 ms, the read's p99
 * during the import within 1.5 × unloaded.
 *
 * The second part's server runs in a process of its own (bench/import-server.ts),
 * with the V8 flags the product runs with (bin/node-flags.js), its heap
 * settled before it listens as `npm start` does (src/main.ts); the longest
 * event-loop block over HTTP is that process's.
 */
const { values: opts } = parseArgs({
  options: {
    items: { type: 'string', default: '500' },
    runs: { type: 'string', default: '3' },
    'min-reads': { type: 'string', default: '3000' },
    // The eight slowest reads of each phase, beside the percentiles.
    slowest: { type: 'boolean', default: false },
    // A V8 CPU profile of the server's process (its loop and the pool's threads) into this directory.
    profile: { type: 'string' },
    // Only the second part (over HTTP), for repeated runs of the read's p99.
    'http-only': { type: 'boolean', default: false },
    // For the slowest reads during the imports: how long before the server read them, in the server, and after
    // its answer left, with the server loop's stalls over 4 ms meanwhile.
    where: { type: 'boolean', default: false },
  },
});
const ITEMS = Number(opts.items);
const RUNS = Number(opts.runs);
const MIN_READS = Number(opts['min-reads']);
/** The partner's reads a second, at a fixed rate (open loop), in both phases. */
const READS_PER_S = 75;
/** How long each phase reads: `min-reads` at the reader's rate, unloaded and then during the imports. */
const PHASE_MS = Math.ceil((MIN_READS / READS_PER_S) * 1000);
if (!Number.isInteger(ITEMS) || ITEMS < 10 || ITEMS > 500 || !Number.isInteger(RUNS) || RUNS < 1 || !Number.isInteger(MIN_READS) || MIN_READS < 100) {
  throw new Error('--items 10–500, --runs ≥ 1 and --min-reads ≥ 100, whole numbers');
}

/** A test of `n` questions cycling through every type, in five sections (the second a pool of 1-point items). */
function generatedTest(n: number) {
  const perSection = Math.ceil(n / 5);
  const sections: Array<SectionInput & { id: string; questions: Question[] }> = [];
  for (let s = 0; s < 5; s++) {
    const questions: Question[] = [];
    for (let i = s * perSection; i < Math.min(n, (s + 1) * perSection); i++) {
      const q = BENCH_QUESTIONS[s === 1 ? i % 3 : i % BENCH_QUESTIONS.length]!;
      questions.push({ ...q, id: `q${i}`, prompt: `${q.prompt} (item ${i}) ${'Some context for the question. '.repeat(4)}` } as Question);
    }
    sections.push({ id: `s${s}`, title: `Section ${s + 1}`, shuffleQuestions: s % 2 === 0, ...(s === 1 ? { draw: 10 } : {}), questions });
  }
  return { testId: 'tst_bench', title: `Bench ${n}`, durationMinutes: 90, sections };
}

const zip = exportQti3(generatedTest(ITEMS));
console.log(`Package: ${ITEMS} items, ${(zip.length / 1024).toFixed(0)} KB compressed; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);
// The first import compiles the question validator once per process: not what either measurement is about.
await importQtiPackage(zip);

async function timed(yieldEveryMs: number | 'pool') {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const t0 = performance.now();
  const { report } = yieldEveryMs === 'pool' ? await readImport({ bytes: zip, format: 'qti', dryRun: true }) : await importQtiPackage(zip, { yieldEveryMs });
  const ms = performance.now() - t0;
  // The histogram records a block when the loop next runs its timer: let it turn before reading it.
  await new Promise((r) => setTimeout(r, 20));
  h.disable();
  if (report.imported !== ITEMS) throw new Error(`imported ${report.imported} of ${ITEMS}: ${JSON.stringify(report.skipped.slice(0, 3))}`);
  return { ms, maxBlockMs: h.max / 1e6 };
}

/** The first part: read, parse and map in this process, with no database. */
async function inProcess(): Promise<void> {
  console.log('\n1. In process (read, parse, map; no database)');
  {
    // The machine's own noise: the longest event-loop delay over a second in which this process does nothing.
    const idle = monitorEventLoopDelay({ resolution: 1 });
    idle.enable();
    await new Promise((r) => setTimeout(r, 1000));
    idle.disable();
    console.log(`   ${'idle, for comparison'.padEnd(28)} longest event-loop delay ${(idle.max / 1e6).toFixed(1)} ms`);
  }
  // The pool's thread loads the parser on its first task: not what the measurement is about either.
  await readImport({ bytes: zip, format: 'qti', dryRun: true });
  for (const [label, every] of [['on the loop, no yielding', Infinity], ['on the loop, yield every 3 ms', 3], ['on the worker pool', 'pool']] as const) {
    const runs = [];
    for (let r = 0; r < RUNS; r++) runs.push(await timed(every));
    const worst = runs.reduce((a, b) => (b.maxBlockMs > a.maxBlockMs ? b : a));
    console.log(`   ${label.padEnd(28)} time ${runs.map((x) => x.ms.toFixed(0)).join(' / ')} ms; longest event-loop block ${runs.map((x) => x.maxBlockMs.toFixed(1)).join(' / ')} ms (worst ${worst.maxBlockMs.toFixed(1)} ms)`);
  }

  // This process's part is done: its threads would keep it from exiting.
  await closeWorkerPool();
}
if (!opts['http-only']) await inProcess();

console.log('\n2. Over HTTP with a database: the import while a partner reads');
const db = await openBenchDatabase('assay_bench_import');
const children: ChildProcess[] = [];
try {
  const server = fork(path.join(import.meta.dirname, 'import-server.ts'), [db.url], { execArgv: [...NODE_FLAGS, ...(opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${opts.profile}`] : []), '--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = once(server, 'exit').then(() => {
    throw new Error('the import server exited');
  });
  const ask = async <T>(m?: string): Promise<T> => {
    const reply = once(server, 'message') as Promise<[T]>;
    if (m) server.send(m);
    return (await Promise.race([reply, exited]))[0];
  };
  children.push(server);
  const { url: base, apiKey, adminToken } = await ask<ImportServerReady>();
  // The partner's reads come from a process of their own at a fixed rate (bench/partner-reader.ts): this process
  // parsed nine packages on its loop above, and its own pauses would count as the server's.
  const reader = fork(path.join(import.meta.dirname, 'partner-reader.ts'), [base, '/api/partner/v1/tests?limit=20', apiKey, String(READS_PER_S)], {
    execArgv: [...NODE_FLAGS, '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(reader);
  await once(reader, 'message'); // 'ready'
  let taken: ReaderTake = { latencies: [], starts: [], ids: [], errors: [] };
  const take = async (m: 'take' | 'stop'): Promise<number[]> => {
    const reply = once(reader, 'message') as Promise<[ReaderTake]>;
    reader.send(m);
    [taken] = await reply;
    const { latencies, errors } = taken;
    if (errors.length > 0) throw new Error(`the partner's reads failed: ${errors.slice(0, 3).join('; ')}`);
    return latencies;
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
  const importOnce = async () => {
    const res = await request(`${base}/api/admin/v1/tests/import`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/zip' }, body: Buffer.from(zip) });
    const body = (await res.body.json()) as { report?: { imported: number } };
    if (res.statusCode !== 201 || body.report?.imported !== ITEMS) throw new Error(`import answered ${res.statusCode}: ${JSON.stringify(body).slice(0, 600)}`);
  };
  // Warm-up, not measured: the reads, and one import, whose pool threads load the parser and the validators first
  // (3-4 s); then the server collects that import's garbage, as a server does that has been up a while.
  await sleep(1_000);
  await importOnce();
  await ask('settle');
  // The reads the collection held (tens of ms) end within this second, and are not counted.
  await sleep(1_000);
  await take('take');
  await sleep(PHASE_MS);
  const unloaded = await take('take');
  const importTimes: number[] = [];
  if (opts.where) server.send('trace');
  server.send('monitor');
  const t0 = performance.now();
  for (let r = 0; r < RUNS || performance.now() - t0 < PHASE_MS; r++) {
    const started = performance.now();
    await importOnce();
    importTimes.push(performance.now() - started);
  }
  const during = await take('stop');
  const report = await ask<ServerReport>('report');
  const { maxBlockMs } = report;
  const sorted = [...importTimes].sort((a, b) => a - b);
  const shown = sorted.length <= 6 ? importTimes.map((x) => x.toFixed(0)).join(' / ') : `${sorted[0]!.toFixed(0)} to ${sorted.at(-1)!.toFixed(0)} (median ${pct(importTimes, 50).toFixed(0)})`;
  console.log(`   ${importTimes.length} imports over HTTP (201, ${ITEMS} questions stored each): ${shown} ms; longest event-loop block ${maxBlockMs.toFixed(1)} ms`);
  console.log(`   partner read unloaded: p50 ${pct(unloaded, 50).toFixed(1)} ms, p99 ${pct(unloaded, 99).toFixed(1)} ms (${unloaded.length} reads)`);
  console.log(`   partner read during the imports: p50 ${pct(during, 50).toFixed(1)} ms, p99 ${pct(during, 99).toFixed(1)} ms (${during.length} reads); p99 ratio ${(pct(during, 99) / pct(unloaded, 99)).toFixed(2)} (target ≤ 1.5)`);
  if (opts.slowest) {
    const slowest = (xs: number[]) => [...xs].sort((a, b) => b - a).slice(0, 8).map((x) => x.toFixed(1)).join(', ');
    console.log(`   slowest reads, ms: unloaded ${slowest(unloaded)}; during the imports ${slowest(during)}`);
  }
  if (opts.where) printWhere(taken, report);
  server.send('stop');
  await exited.catch(() => undefined);
} finally {
  // After a failure, the server and the reader would otherwise keep this process waiting.
  for (const child of children) if (child.exitCode === null) child.kill();
  await db.close();
}

interface ReaderTake {
  latencies: number[];
  /** When each read started, on the machine's clock (performance.timeOrigin + now). */
  starts: number[];
  ids: number[];
  errors: string[];
}

interface ServerReport {
  maxBlockMs: number;
  /** With `--where`: each read's id, with when it reached the server and when its answer left. */
  reads: Array<[number, [number, number]]>;
  /** With `--where`: each stall of the server's loop over 4 ms, as [start, ms]. */
  stalls: Array<[number, number]>;
}

/** `--where`: the eight slowest reads during the imports, each split where its time went. */
function printWhere(taken: ReaderTake, report: ServerReport): void {
  const seen = new Map(report.reads);
  const slowest = taken.latencies.map((_, i) => i).sort((a, b) => taken.latencies[b]! - taken.latencies[a]!).slice(0, 8);
  console.log('   where the slowest reads during the imports went (ms): before the server read it / in the server / after its answer left; server loop stalls meanwhile');
  for (const i of slowest) {
    const start = taken.starts[i]!;
    const ms = taken.latencies[i]!;
    const server = seen.get(taken.ids[i]!);
    const split = server ? `${(server[0] - start).toFixed(1)} / ${(server[1] - server[0]).toFixed(1)} / ${(start + ms - server[1]).toFixed(1)}` : 'not seen by the server';
    const stalls = report.stalls.filter(([t, l]) => t + l > start && t < start + ms).map(([, l]) => l.toFixed(1));
    console.log(`     ${ms.toFixed(1)}: ${split}; stalls ${stalls.length > 0 ? stalls.join(', ') : 'none'}`);
  }
}
