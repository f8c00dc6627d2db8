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
 * `npm run bench:results -- [--attempts 100000 --requests 50 --csv-rows 1000000 --pdfs 200 --only stats|csv|pdf]`
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
 * - pdf: `pdfs` candidate reports as PDF, requested one after another: PDFs per second.
 * The server runs in this process; RSS is this process's.
 */
const { values: opts } = parseArgs({
  options: {
    attempts: { type: 'string', default: '100000' },
    requests: { type: 'string', default: '50' },
    'csv-rows': { type: 'string', default: '1000000' },
    pdfs: { type: 'string', default: '200' },
    only: { type: 'string' },
  },
});
const ATTEMPTS = Number(opts.attempts);
const REQUESTS = Number(opts.requests);
const CSV_ROWS = Number(opts['csv-rows']);
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
  await app.close();
} finally {
  await pool.end();
  await db.close();
}
