import { fork } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance as perf } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createPool } from '../src/platform/db.js';
import { systemClock } from '../src/platform/clock.js';
import { migrate } from '../src/platform/migrate.js';
import { translator } from '../src/platform/i18n/catalogue.js';
import { chooseLocale } from '../src/platform/i18n/locales.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { createApiKey } from '../src/modules/institutions/api-keys.js';
import { createTest, findPublishedTest, publishTest } from '../src/modules/catalog/tests-service.js';
import { PORTAL_COOKIE, createPortalSession } from '../src/modules/staff/portal-sessions.js';
import { inviteStaff } from '../src/modules/staff/staff-service.js';
import { findReport } from '../src/modules/results/report-repo.js';
import { renderReportPdf } from '../src/modules/results/report-pdf-task.js';
import { readStatisticsInputs } from '../src/modules/results/get-statistics.js';
import { computeStatisticsCsv, computeStatisticsJson } from '../src/modules/results/statistics-task.js';
import { rollUpAttempts } from '../src/modules/results/statistics-repo.js';
import { renderStatisticsBody } from '../src/modules/portal/statistics/statistics-page-task.js';
import { buildServer, serverContext } from '../src/server.js';
import { seedScoredAttempts, type SeedAttempt } from '../scripts/seed-results.js';
import { bigStatisticsAttempts, bigStatisticsTest, longReportTest, seedLongReport } from '../scripts/seed-heavy-results.js';
import { benchAppConfig, openBenchDatabase } from './bench-database.js';

/**
 * `npm run bench:off-loop -- [--questions 100,500 --attempts 1000 --locales en,ar,hi,ja,zh-Hans --seconds 5 --reads 50 --only pdf,stats,rollup]`
 *
 * What report PDFs, statistics and their rollup cost the event loop every
 * tenant shares, before and after they moved to the worker pool, in one run
 * on a fresh database (DATABASE_URL's server, else an embedded PostgreSQL).
 * A partner reads `GET /api/partner/v1/assignments/{id}` at `reads` per
 * second from a process of its own (bench/partner-reader.ts) through every
 * phase; each phase prints the longest event-loop block
 * (`monitorEventLoopDelay`, 1 ms resolution), how busy the loop was
 * (`eventLoopUtilization`: the main thread's own work, so a long block while
 * the loop was idle is the machine not running it), the read's p50 / p99 /
 * max and the load average. "on the loop" is the work as the routes did it before
 * (the same task functions, called in the request on the main thread: the
 * time of each call is the synchronous block it makes); "on the pool" is
 * the routes as they are.
 * - idle: reads alone (the machine's noise).
 * - pdf: a short report (one part, two questions) and a long one (10 parts of
 *   10 questions with each question's points shown, the reviewer's feedback
 *   on 20 of them), in each of `locales`, one after another.
 * - stats: per size in `questions`, a Markdown test (a formula in each prompt
 *   and option) with `attempts` attempts: the rollup of them as the
 *   `results.roll_up` job runs it (500 attempts per statement; SQL only, so
 *   there is no "on the pool"), then the operator API's statistics, the
 *   Statistics page and its CSV, one after another.
 * Each phase repeats its work until it has run `seconds` (at least once), so
 * the read's p99 rests on a few hundred reads; the time of each piece of
 * work is printed from its first pass.
 */
const { values: opts } = parseArgs({
  options: {
    questions: { type: 'string', default: '100,500' },
    attempts: { type: 'string', default: '1000' },
    locales: { type: 'string', default: 'en,ar,hi,ja,zh-Hans' },
    seconds: { type: 'string', default: '5' },
    reads: { type: 'string', default: '50' },
    only: { type: 'string' },
  },
});
const SIZES = opts.questions.split(',').map(Number);
const ATTEMPTS = Number(opts.attempts);
const LOCALES = opts.locales.split(',');
const SECONDS = Number(opts.seconds);
const READS_PER_S = Number(opts.reads);
const run = (what: string) => !opts.only || opts.only.split(',').includes(what);
if (SIZES.some((n) => !Number.isInteger(n) || n < 4 || n > 500) || !(ATTEMPTS >= 2) || !(SECONDS >= 0)) throw new Error('--questions 4–500 each, --attempts ≥ 2, --seconds ≥ 0');

const db = await openBenchDatabase('assay_bench_off_loop');
const pool = createPool(db.url, 10);
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();

const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');
const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
function pct(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Partner reads at a fixed rate from their own process, so the server's latency is what is measured. */
async function partnerReader(url: string, readPath: string, apiKey: string) {
  const reader = fork(path.join(import.meta.dirname, 'partner-reader.ts'), [url, readPath, apiKey, String(READS_PER_S)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await once(reader, 'message');
  return async (): Promise<{ latencies: number[]; errors: string[] }> => {
    const result = once(reader, 'message') as Promise<[{ latencies: number[]; errors: string[] }]>;
    reader.send('stop');
    return (await result)[0];
  };
}

interface Phase {
  name: string;
  /** The synchronous time of each call on the loop, ms (on-the-loop phases). */
  blocks?: number[];
}

let reading: { base: string; path: string; apiKey: string };
/** The phase running, whose on-the-loop calls are timed. */
let currentPhase: Phase = { name: '' };
/** Runs `work` (a pass: `first` on the first) while a partner reads, until SECONDS have passed; prints the phase's line. */
async function phase(name: string, work: (p: Phase, first: boolean) => Promise<void>, opts: { repeat?: boolean } = {}): Promise<void> {
  const stop = await partnerReader(reading.base, reading.path, reading.apiKey);
  const p: Phase = { name };
  await new Promise((r) => setTimeout(r, 300)); // the reader's first reads (connections) before the work
  const before = load();
  delay.reset();
  const elu = perf.eventLoopUtilization();
  const t0 = performance.now();
  currentPhase = p;
  for (let pass = 0; pass === 0 || (opts.repeat !== false && performance.now() - t0 < SECONDS * 1000); pass++) await work(p, pass === 0);
  const seconds = (performance.now() - t0) / 1000;
  const longest = delay.max / 1e6;
  const busy = perf.eventLoopUtilization(elu).utilization * 100;
  const { latencies, errors } = await stop();
  const sorted = latencies.sort((a, b) => a - b);
  const calls = p.blocks?.length ? `; each call on the loop: median ${ms(pct([...p.blocks].sort((a, b) => a - b), 50))} ms, max ${ms(Math.max(...p.blocks))} ms` : '';
  console.log(
    `${name.padEnd(44)} ${seconds.toFixed(1).padStart(6)} s  longest block ${ms(longest).padStart(6)} ms  loop busy ${busy.toFixed(0).padStart(3)} %  read p50 ${ms(pct(sorted, 50))} / p99 ${ms(pct(sorted, 99))} / max ${ms(sorted.at(-1) ?? NaN)} ms (${sorted.length} reads${errors.length ? `, ${errors.length} errors` : ''})  load ${before} → ${load()}${calls}`,
  );
}

/** One piece of work's line, from a phase's first pass: its answer time, size and (on the loop) its synchronous block. */
function item(label: string, answerMs: number, bytes: number, p: Phase): void {
  const block = p.blocks?.length ? `, synchronous block ${ms(p.blocks.at(-1)!)} ms` : '';
  console.log(`  ${label.padEnd(14)} answered in ${ms(answerMs).padStart(6)} ms, ${(bytes / 1024).toFixed(0)} KB${block}`);
}

/** Times a synchronous (or synchronous-then-settling) call on the loop. */
async function onLoop<T>(p: Phase, fn: () => T | Promise<T>): Promise<T> {
  const t0 = performance.now();
  const pending = fn();
  (p.blocks ??= []).push(performance.now() - t0);
  return pending;
}

async function fetchOk(url: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(url, { headers });
  const bytes = (await res.arrayBuffer()).byteLength;
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status}`);
  return bytes;
}

try {
  await migrate(pool);
  const config = benchAppConfig(db.url);
  const ctx = serverContext({ config, pool, clock: systemClock });
  const inst = await createInstitution(pool, { name: 'Riverside University', callbackDomains: ['bench.example'] });
  await pool.query('UPDATE institutions SET report_shows_questions = true WHERE id = $1', [inst.institutionId]);
  const { apiKey } = await createApiKey(pool, inst.institutionId, 'bench');
  const admin = await inviteStaff(ctx, { institutionId: inst.institutionId, email: 'admin@bench.example', role: 'admin' }, { actor: { kind: 'cli' }, ip: null });
  const { sessionId } = await createPortalSession(pool, { staffId: admin.staffId, method: 'link', now: new Date() });
  const portal = { cookie: `${PORTAL_COOKIE}=${sessionId}` };
  const auth = { authorization: `Bearer ${config.adminToken}` };

  // The reports: a short and a long one per language.
  const published = async (input: Parameters<typeof createTest>[1]) => {
    const { testId } = await createTest(pool, input);
    await publishTest(pool, testId, inst.institutionId);
    return { testId, testVersionId: (await findPublishedTest(pool, inst.institutionId, testId))!.testVersionId };
  };
  const short = await published(longReportTest(1, 2));
  const long = await published(longReportTest(10, 10));
  const reports: Array<{ label: string; assignmentId: string }> = [];
  for (const locale of LOCALES) {
    reports.push({ label: `short ${locale}`, assignmentId: await seedLongReport(pool, { institutionId: inst.institutionId, ...short, locale, sections: 1, perSection: 2, feedbackQuestions: 0 }) });
    reports.push({ label: `long ${locale}`, assignmentId: await seedLongReport(pool, { institutionId: inst.institutionId, ...long, locale, sections: 10, perSection: 10, feedbackQuestions: 20 }) });
  }
  const reportPath = (assignmentId: string) => new URL(ctx.signer.report.issue(assignmentId, ctx.signer.report.expiryFor(new Date()))).pathname;

  const app = await buildServer(ctx, { logger: false });
  // "Before": the same work in the request, on the loop, as the routes did it.
  app.get('/bench/on-loop/report/:assignmentId', async (request, reply) => {
    const data = (await findReport(pool, (request.params as { assignmentId: string }).assignmentId))!;
    const locale = chooseLocale({ candidate: data.candidateLocale, assignment: data.locale });
    const { pdf } = await onLoop(currentPhase, () => renderReportPdf(new Uint8Array(0), { data, generatedAt: new Date(), locale, fontDirs: config.reportFontDirs }));
    return reply.type('application/pdf').send(Buffer.from(pdf));
  });
  app.get('/bench/on-loop/statistics/:testId/:what', async (request, reply) => {
    const { testId, what } = request.params as { testId: string; what: 'api' | 'page' | 'csv' };
    const inputs = await readStatisticsInputs(pool, { institutionId: inst.institutionId, testId, livemode: true });
    const p = currentPhase;
    const none = new Uint8Array(0);
    // As the routes did it: the figures computed and rendered in the request (the JSON text in between is not timed).
    const text = JSON.stringify(inputs);
    if (what === 'api') return reply.type('application/json').send(await onLoop(p, () => computeStatisticsJson(none, { inputs: text })));
    if (what === 'csv') return reply.type('text/csv').send(await onLoop(p, () => computeStatisticsCsv(none, { inputs: text })));
    const csvHref = `/portal/tests/${testId}/statistics.csv`;
    return reply.type('text/html').send(await onLoop(p, () => renderStatisticsBody(none, { inputs: text, livemode: true, language: null, csvHref })));
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  reading = { base, path: `/api/partner/v1/assignments/${reports[0]!.assignmentId}`, apiKey };
  console.log(`PostgreSQL ${db.version}${db.embedded ? ' (embedded)' : ''}; ${os.availableParallelism()} cores; worker pool: ${config.workerPool.threads} thread(s), queue ${config.workerPool.queueLimit}; partner reads at ${READS_PER_S}/s`);
  // Warm: the translators, the fonts of the loop's own copy, the pool's thread and its modules.
  translator(chooseLocale({}));
  for (const r of reports.filter((x) => x.label.startsWith('short'))) {
    await fetchOk(`${base}/bench/on-loop/report/${r.assignmentId}`);
    await fetchOk(`${base}${reportPath(r.assignmentId)}?format=pdf`);
  }

  await phase('idle: partner reads only', () => new Promise((r) => setTimeout(r, Math.max(SECONDS, 1) * 1000)), { repeat: false });

  if (run('pdf')) {
    for (const where of ['on the loop', 'on the pool'] as const) {
      await phase(`report PDFs ${where}`, async (p, first) => {
        // `p.blocks` grows by one per call on the loop: the last is this request's.
        for (const r of reports) {
          const t0 = performance.now();
          const bytes = await fetchOk(where === 'on the loop' ? `${base}/bench/on-loop/report/${r.assignmentId}` : `${base}${reportPath(r.assignmentId)}?format=pdf`);
          if (first) item(r.label, performance.now() - t0, bytes, p);
        }
      });
    }
  }

  if (run('stats') || run('rollup')) {
    for (const size of SIZES) {
      const input = bigStatisticsTest(size);
      const test = await published(input);
      const ids: string[] = [];
      const all = bigStatisticsAttempts(input, ATTEMPTS, `s${size}`);
      for (let i = 0; i < all.length; i += 200) {
        ids.push(...(await seedScoredAttempts(pool, { institutionId: inst.institutionId, ...test, livemode: true, maxPoints: size, passPercent: 50, rollUp: false }, all.slice(i, i + 200) as SeedAttempt[])));
      }
      await pool.query('ANALYZE');
      await phase(
        `rollup of ${ATTEMPTS} attempts × ${size} questions`,
        async () => {
          for (let i = 0; i < ids.length; i += 500) await rollUpAttempts(pool, ids.slice(i, i + 500));
        },
        { repeat: false }, // an attempt joins the rollup once: a second pass would add nothing
      );
      if (!run('stats')) continue;
      const urls = {
        'on the loop': (what: string) => `${base}/bench/on-loop/statistics/${test.testId}/${what}`,
        'on the pool': (what: string) => (what === 'api' ? `${base}/api/admin/v1/tests/${test.testId}/statistics?institutionId=${inst.institutionId}` : `${base}/portal/tests/${test.testId}/statistics${what === 'csv' ? '.csv' : ''}`),
      };
      for (const where of ['on the loop', 'on the pool'] as const) {
        await fetchOk(urls[where]('page'), portal);
        await phase(`statistics at ${size} questions ${where}`, async (p, first) => {
          for (const what of ['api', 'page', 'csv']) {
            const t0 = performance.now();
            const bytes = await fetchOk(urls[where](what), what === 'api' ? auth : portal);
            if (first) item(what, performance.now() - t0, bytes, p);
          }
        });
      }
    }
  }
  await app.close();
} finally {
  delay.disable();
  await pool.end();
  await db.close();
}
