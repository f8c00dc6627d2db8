import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createPool } from '../src/platform/db.js';
import { systemClock } from '../src/platform/clock.js';
import { migrate } from '../src/platform/migrate.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { createTest, publishTest } from '../src/modules/catalog/tests-service.js';
import { buildServer, serverContext } from '../src/server.js';
import { seedScoredAttempts, type SeedAttempt } from '../scripts/seed-results.js';
import { benchAppConfig, openBenchDatabase } from './bench-database.js';

/**
 * `npm run bench:results -- [--attempts 100000 --requests 50 --csv-rows 1000000 --response-attempts 50000 --pdfs 200 --only stats|csv|responses|pdf]`
 *
 * Results at scale, on a fresh database (DATABASE_URL's server, else an
 * embedded PostgreSQL):
 * - stats: `attempts` completed, scored attempts of the 200-attempt fixture's
 *   test (test/fixtures/statistics: a section of five questions and a pool
 *   drawing 2 of 3, so 7 marks per attempt), then `requests` reads of
 *   GET /api/admin/v1/tests/{id}/statistics over HTTP, one at a time:
 *   p50 / p99 / max (target p99 < 1 s).
 * - csv: `csv-rows` completed assignments in a second institution, then
 *   GET /api/admin/v1/institutions/{id}/results.csv read to the end: time,
 *   rows, bytes, and the server's peak RSS sampled every 50 ms (the export
 *   streams from a cursor, so memory stays flat).
 * - responses: `response-attempts` scored attempts of the fixture's test
 *   (answers and 7 marks each), then GET …/responses.csv read to the end:
 *   time, rows, bytes and peak RSS as for csv (a cursor of 100 attempts).
 * - pdf: `pdfs` candidate reports as PDF, requested one after another: PDFs per second.
 * The server runs in this process; RSS is this process's.
 */
const { values: opts } = parseArgs({
  options: {
    attempts: { type: 'string', default: '100000' },
    requests: { type: 'string', default: '50' },
    'csv-rows': { type: 'string', default: '1000000' },
    'response-attempts': { type: 'string', default: '50000' },
    pdfs: { type: 'string', default: '200' },
    only: { type: 'string' },
  },
});
const ATTEMPTS = Number(opts.attempts);
const REQUESTS = Number(opts.requests);
const CSV_ROWS = Number(opts['csv-rows']);
const RESPONSE_ATTEMPTS = Number(opts['response-attempts']);
const PDFS = Number(opts.pdfs);
const run = (what: string) => !opts.only || opts.only.split(',').includes(what);

const fixture = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../test/fixtures/statistics/fixture.json'), 'utf8'));
const db = await openBenchDatabase('assay_bench_results');
const pool = createPool(db.url, 10);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function seed(institutionId: string, test: { testId: string; testVersionId: string }, count: number, tag: string): Promise<string[]> {
  const ids: string[] = [];
  const BATCH = 10_000;
  for (let start = 0; start < count; start += BATCH) {
    const batch: SeedAttempt[] = [];
    for (let i = start; i < Math.min(count, start + BATCH); i++) {
      const a = fixture.attempts[i % fixture.attempts.length];
      batch.push({ ...a, externalUserId: `${tag}-${i}`, name: `Candidate ${i}` });
    }
    ids.push(...(await seedScoredAttempts(pool, { institutionId, ...test, livemode: true, maxPoints: fixture.maxPoints, passPercent: 50 }, batch)));
  }
  await pool.query('ANALYZE');
  return ids;
}

/** An export read to the end: its line count (a header and the records; no field of these has a line break) and bytes. */
async function readExport(url: string, headers: Record<string, string>): Promise<{ lines: number; bytes: number }> {
  const res = await fetch(url, { headers });
  if (res.status !== 200 || !res.body) throw new Error(`export: ${res.status}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const b of chunk) if (b === 10) lines++;
  }
  return { lines, bytes };
}

try {
  await migrate(pool);
  const config = benchAppConfig(db.url);
  const ctx = serverContext({ config, pool, clock: systemClock });
  const app = await buildServer(ctx, { logger: false });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const auth = { authorization: `Bearer ${config.adminToken}` };
  const t = await createTest(pool, fixture.test);
  const { rows } = await pool.query<{ id: string }>('SELECT id FROM test_versions WHERE test_id = $1', [t.testId]);
  const test = { testId: t.testId, testVersionId: rows[0]!.id };
  console.log(`PostgreSQL ${db.version}${db.embedded ? ' (embedded)' : ''}`);

  if (run('stats')) {
    const inst = await createInstitution(pool, { name: 'Stats University', callbackDomains: ['bench.example'] });
    await publishTest(pool, t.testId, inst.institutionId);
    let s = performance.now();
    await seed(inst.institutionId, test, ATTEMPTS, 'stats');
    console.log(`seeded ${ATTEMPTS} attempts in ${((performance.now() - s) / 1000).toFixed(1)} s`);
    const url = `${address}/api/admin/v1/tests/${t.testId}/statistics?institutionId=${inst.institutionId}`;
    const times: number[] = [];
    for (let i = 0; i < REQUESTS + 3; i++) {
      s = performance.now();
      const res = await fetch(url, { headers: auth });
      const body = (await res.json()) as { attempts: number };
      if (res.status !== 200 || body.attempts !== ATTEMPTS) throw new Error(`statistics: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
      if (i >= 3) times.push(performance.now() - s); // three warm-up reads
    }
    times.sort((a, b) => a - b);
    console.log(`statistics at ${ATTEMPTS} attempts, ${REQUESTS} reads: p50 ${percentile(times, 50).toFixed(0)} ms, p99 ${percentile(times, 99).toFixed(0)} ms, max ${times.at(-1)!.toFixed(0)} ms`);
  }
  if (run('csv')) {
    // A million completed assignments written by PostgreSQL itself (users, assignments with a sectioned score, a flag per 50).
    const inst = await createInstitution(pool, { name: 'Export University', callbackDomains: ['bench.example'] });
    await publishTest(pool, t.testId, inst.institutionId);
    let s = performance.now();
    for (let start = 0; start < CSV_ROWS; start += 200_000) {
      const end = Math.min(CSV_ROWS, start + 200_000);
      await pool.query(
        `INSERT INTO users (id, institution_id, external_user_id, email, name)
         SELECT 'usr_csv_' || n, $1, 'candidate-' || n, 'c' || n || '@bench.example', 'Candidate ' || n FROM generate_series($2::int, $3::int - 1) n`,
        [inst.institutionId, start, end],
      );
      await pool.query(
        `INSERT INTO assignments (id, institution_id, user_id, test_id, test_version_id, status, callback_url, created_at, started_at, submitted_at, completed_at, score)
         SELECT 'asg_csv_' || n, $1, 'usr_csv_' || n, $4, $5, 'completed', 'https://bench.example/return',
                now() - make_interval(secs => n), now() - make_interval(secs => n) + interval '1 minute', now() - make_interval(secs => n) + interval '20 minutes',
                now() - make_interval(secs => n) + interval '20 minutes',
                jsonb_build_object('points', n % 12, 'maxPoints', 11, 'percent', round((n % 12) / 11.0 * 100, 2), 'passed', n % 12 >= 6,
                  'gradingStatus', 'final', 'markedAt', to_char(now(), 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                  'sections', jsonb_build_array(jsonb_build_object('sectionId', 'core', 'title', 'Core', 'points', n % 8, 'maxPoints', 7, 'percent', round((n % 8) / 7.0 * 100, 2)),
                                                jsonb_build_object('sectionId', 'pool', 'title', 'Pool', 'points', n % 5, 'maxPoints', 4, 'percent', (n % 5) * 25)))
           FROM generate_series($2::int, $3::int - 1) n`,
        [inst.institutionId, start, end, test.testId, test.testVersionId],
      );
    }
    await pool.query(
      `INSERT INTO attempts (assignment_id, institution_id, user_id, test_version_id, started_at, deadline_at, submitted_at, submitted_by)
       SELECT id, institution_id, user_id, test_version_id, started_at, started_at + interval '30 minutes', submitted_at, 'student' FROM assignments WHERE institution_id = $1 AND id LIKE 'asg_csv_%' AND substr(id, 9)::int % 50 = 0`,
      [inst.institutionId],
    );
    await pool.query(
      `INSERT INTO proctoring_flags (id, institution_id, assignment_id, signal_id, kind, severity, started_at, duration_seconds, ongoing, created_at, updated_at)
       SELECT 'flg_' || assignment_id, institution_id, assignment_id, 's1', 'left_test', 'warning', now(), 3, false, now(), now() FROM attempts WHERE institution_id = $1`,
      [inst.institutionId],
    );
    await pool.query('ANALYZE');
    console.log(`seeded ${CSV_ROWS} assignments for the export in ${((performance.now() - s) / 1000).toFixed(1)} s`);
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    s = performance.now();
    const { lines, bytes } = await readExport(`${address}/api/admin/v1/institutions/${inst.institutionId}/results.csv?testId=${t.testId}`, auth);
    clearInterval(sampler);
    const seconds = (performance.now() - s) / 1000;
    console.log(
      `CSV export of ${lines - 1} rows: ${seconds.toFixed(1)} s (${Math.round((lines - 1) / seconds)} rows/s), ${(bytes / 1e6).toFixed(0)} MB; ` +
        `RSS ${(rssBefore / 1e6).toFixed(0)} MB before, peak ${(peak / 1e6).toFixed(0)} MB (+${((peak - rssBefore) / 1e6).toFixed(0)} MB)`,
    );
  }

  if (run('responses')) {
    const inst = await createInstitution(pool, { name: 'Responses University', callbackDomains: ['bench.example'] });
    await publishTest(pool, t.testId, inst.institutionId);
    let s = performance.now();
    await seed(inst.institutionId, test, RESPONSE_ATTEMPTS, 'resp');
    console.log(`seeded ${RESPONSE_ATTEMPTS} attempts for the responses export in ${((performance.now() - s) / 1000).toFixed(1)} s`);
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    s = performance.now();
    const { lines, bytes } = await readExport(`${address}/api/admin/v1/institutions/${inst.institutionId}/responses.csv`, auth);
    clearInterval(sampler);
    const seconds = (performance.now() - s) / 1000;
    console.log(
      `responses export of ${RESPONSE_ATTEMPTS} attempts, ${lines - 1} rows: ${seconds.toFixed(1)} s (${Math.round((lines - 1) / seconds)} rows/s), ${(bytes / 1e6).toFixed(0)} MB; ` +
        `RSS ${(rssBefore / 1e6).toFixed(0)} MB before, peak ${(peak / 1e6).toFixed(0)} MB (+${((peak - rssBefore) / 1e6).toFixed(0)} MB)`,
    );
  }

  if (run('pdf')) {
    const inst = await createInstitution(pool, { name: 'Report University', callbackDomains: ['bench.example'] });
    await publishTest(pool, t.testId, inst.institutionId);
    const ids = await seed(inst.institutionId, test, Math.min(PDFS, 1000), 'pdf');
    const links = ids.map((id) => new URL(ctx.signer.report.issue(id, ctx.signer.report.expiryFor(new Date()))).pathname);
    for (let i = 0; i < 5; i++) await (await fetch(`${address}${links[i % links.length]}?format=pdf`)).arrayBuffer();
    const s = performance.now();
    let bytes = 0;
    for (let i = 0; i < PDFS; i++) {
      const res = await fetch(`${address}${links[i % links.length]}?format=pdf`);
      if (res.status !== 200) throw new Error(`report: ${res.status}`);
      bytes += (await res.arrayBuffer()).byteLength;
    }
    const seconds = (performance.now() - s) / 1000;
    console.log(`report PDFs: ${PDFS} one after another in ${seconds.toFixed(1)} s: ${(PDFS / seconds).toFixed(0)} PDFs/s, ${(bytes / PDFS / 1024).toFixed(1)} KB each`);
  }
  await app.close();
} finally {
  await pool.end();
  await db.close();
}
