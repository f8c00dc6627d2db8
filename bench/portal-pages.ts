import { parseArgs } from 'node:util';
import { createPool, type Pool } from '../src/platform/db.js';
import { systemClock } from '../src/platform/clock.js';
import { migrate } from '../src/platform/migrate.js';
import { DEMO_TESTS } from '../src/demo/demo-tests.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { PORTAL_COOKIE, createPortalSession } from '../src/modules/staff/portal-sessions.js';
import { inviteStaff } from '../src/modules/staff/staff-service.js';
import { createTest, findPublishedTest, publishTest } from '../src/modules/catalog/tests-service.js';
import { buildServer, serverContext } from '../src/server.js';
import { benchAppConfig, openBenchDatabase } from './bench-database.js';

/**
 * `npm run bench:portal -- [--assignments 100000 --requests 300]`
 *
 * The portal's heaviest pages on a big institution: seeds `assignments`
 * assignments in one institution (INSERT … SELECT generate_series: users,
 * every status, ~10 % waiting for marking, 2 % test mode, creation times over 180 days)
 * plus a fifth as many in a second institution, then requests, one at a
 * time over HTTP as a signed-in admin: the Assignments page (first page, a
 * page filtered by status and test, an externalUserId search, a page deep in
 * the keyset, the test-mode and all-modes listings) and the Marking queue. Prints p50/p99/max per page (target:
 * p99 < 100 ms) and the EXPLAIN (ANALYZE) plan of every SELECT each page ran,
 * recorded from the pool during one request, to show which indexes serve it.
 */
const { values: opts } = parseArgs({ options: { assignments: { type: 'string', default: '100000' }, requests: { type: 'string', default: '300' } } });
const N = Number(opts.assignments);
const REQUESTS = Number(opts.requests);
if (!Number.isInteger(N) || N < 100 || !Number.isInteger(REQUESTS) || REQUESTS < 1) throw new Error('--assignments ≥ 100 and --requests ≥ 1, whole numbers');

const db = await openBenchDatabase('assay_bench_portal');
const pool = createPool(db.url, 10);

/** Bulk rows for one institution, set-based: a million-row table takes seconds, not minutes. */
async function seedAssignments(p: Pool, institutionId: string, tests: Array<{ testId: string; testVersionId: string }>, count: number, tag: string) {
  await p.query(
    `INSERT INTO users (id, institution_id, external_user_id, email, created_at, updated_at)
     SELECT 'usr_${tag}_' || n, $1, 'student-${tag}-' || lpad(n::text, 7, '0'), 'student' || n || '@bench.example', now(), now()
       FROM generate_series(1, $2) AS n`,
    [institutionId, count],
  );
  // Status by n mod 20: 14 completed, 2 marking, 1 started, 2 assigned, 1 expired.
  await p.query(
    `WITH s AS (
       SELECT n, (n % 20) AS k, now() - make_interval(secs => (n * 155.52)::int % (180 * 86400)) AS created,
              ($3::text[])[1 + n % array_length($3, 1)] AS test_id, ($4::text[])[1 + n % array_length($4, 1)] AS version_id
         FROM generate_series(1, $2) AS n)
     INSERT INTO assignments (id, institution_id, user_id, test_id, test_version_id, status, callback_url, metadata,
                              created_at, started_at, submitted_at, completed_at, expired_at, score, livemode)
     SELECT 'asg_${tag}_' || n, $1, 'usr_${tag}_' || n, test_id, version_id,
            CASE WHEN k < 14 THEN 'completed' WHEN k < 16 THEN 'marking' WHEN k = 16 THEN 'started' WHEN k < 19 THEN 'assigned' ELSE 'expired' END,
            'https://bench.example/return', '{}', created,
            CASE WHEN k <= 16 THEN created + interval '1 hour' END,
            CASE WHEN k < 16 THEN created + interval '90 minutes' END,
            CASE WHEN k < 14 THEN created + interval '2 hours' END,
            CASE WHEN k = 19 THEN created + interval '7 days' END,
            CASE WHEN k < 16 THEN jsonb_build_object('points', n % 9, 'maxPoints', 8, 'percent', round((n % 9) * 12.5, 2),
                 'passed', CASE WHEN k < 14 THEN n % 9 >= 5 END, 'gradingStatus', CASE WHEN k < 14 THEN 'final' ELSE 'pending_review' END,
                 'markedAt', to_char(created + interval '2 hours', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')) END,
            n % 50 <> 7
       FROM s`,
    [institutionId, count, tests.map((t) => t.testId), tests.map((t) => t.testVersionId)],
  );
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

try {
  await migrate(pool);
  const config = benchAppConfig(db.url);
  const ctx = serverContext({ config, pool, clock: systemClock });
  const main = await createInstitution(pool, { name: 'Bench University', callbackDomains: ['bench.example'] });
  const other = await createInstitution(pool, { name: 'Other College', callbackDomains: ['bench.example'] });
  const tests: Array<{ testId: string; testVersionId: string }> = [];
  for (const input of DEMO_TESTS) {
    const t = await createTest(pool, input);
    await publishTest(pool, t.testId, main.institutionId);
    await publishTest(pool, t.testId, other.institutionId);
    tests.push({ testId: t.testId, testVersionId: (await findPublishedTest(pool, main.institutionId, t.testId))!.testVersionId });
  }
  const started = Date.now();
  await seedAssignments(pool, main.institutionId, tests, N, 'a');
  await seedAssignments(pool, other.institutionId, tests, Math.max(100, Math.round(N / 5)), 'b');
  // As autovacuum leaves a table at rest: statistics, and a visibility map for index-only scans.
  await pool.query('VACUUM ANALYZE');
  process.stdout.write(`Seeded ${N} assignments (+${Math.round(N / 5)} in another institution) in ${((Date.now() - started) / 1000).toFixed(1)} s; PostgreSQL ${db.version}\n`);

  const admin = await inviteStaff(ctx, { institutionId: main.institutionId, email: 'admin@bench.example', role: 'admin' }, { actor: { kind: 'cli' }, ip: null });
  const { sessionId } = await createPortalSession(pool, { staffId: admin.staffId, method: 'link', now: new Date() });
  const app = await buildServer(ctx, { logger: false });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const headers = { cookie: `${PORTAL_COOKIE}=${sessionId}`, accept: 'text/html' };

  // A cursor deep in the listing: the oldest rows, where an OFFSET would have to walk everything.
  const deep = await pool.query<{ t: string; id: string }>(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS t, id FROM assignments
      WHERE institution_id = $1 ORDER BY created_at, id LIMIT 1 OFFSET 100`,
    [main.institutionId],
  );
  const pages = [
    { name: 'Assignments, first page', path: '/portal/assignments' },
    { name: 'Assignments, status + test filter', path: `/portal/assignments?status=completed&testId=${tests[1]!.testId}` },
    { name: 'Assignments, date range', path: `/portal/assignments?from=${new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10)}&to=${new Date(Date.now() - 20 * 86_400_000).toISOString().slice(0, 10)}` },
    { name: 'Assignments, externalUserId search', path: '/portal/assignments?q=student-a-00123' },
    { name: 'Assignments, test mode', path: '/portal/assignments?mode=test' },
    { name: 'Assignments, all modes', path: '/portal/assignments?mode=all' },
    { name: 'Assignments, test mode + status', path: '/portal/assignments?mode=test&status=marking' },
    { name: 'Assignments, deep keyset page', path: `/portal/assignments?cursor=${encodeURIComponent(`${deep.rows[0]!.t}~${deep.rows[0]!.id}`)}&dir=older` },
    { name: 'Marking queue', path: '/portal/marking' },
    { name: 'Overview (not in the target)', path: '/portal' },
    { name: 'Marking queue, page 40', path: '/portal/marking?page=40' },
  ];

  // Record the statements each page runs, once, for their plans.
  const recorded: Array<{ text: string; values: unknown[] }> = [];
  let recording = false;
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  (pool as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args: unknown[]) => {
    if (recording) {
      const [first, second] = args as [string | { text: string; values?: unknown[] }, unknown[] | undefined];
      recorded.push(typeof first === 'string' ? { text: first, values: second ?? [] } : { text: first.text, values: first.values ?? [] });
    }
    return query(...args);
  };

  let worst = 0;
  for (const page of pages) {
    for (let i = 0; i < 5; i++) await (await fetch(base + page.path, { headers })).text(); // warm-up
    const times: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const t0 = performance.now();
      const res = await fetch(base + page.path, { headers });
      const body = await res.text();
      times.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`${page.name}: HTTP ${res.status} ${body.slice(0, 200)}`);
    }
    times.sort((x, y) => x - y);
    const p99 = percentile(times, 99);
    worst = Math.max(worst, p99);
    process.stdout.write(
      `\n${page.name.padEnd(40)} p50 ${percentile(times, 50).toFixed(1).padStart(6)} ms  p99 ${p99.toFixed(1).padStart(6)} ms  max ${times.at(-1)!.toFixed(1).padStart(6)} ms  (${REQUESTS} requests)${p99 < 100 ? '' : '  ← over the 100 ms target'}\n`,
    );
    recorded.length = 0;
    recording = true;
    await (await fetch(base + page.path, { headers })).text();
    recording = false;
    for (const q of recorded.filter((r) => /^\s*(SELECT|WITH)\b/i.test(r.text) && !/\b(UPDATE|INSERT|DELETE)\b/i.test(r.text))) {
      const plan = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${q.text}`, q.values);
      const lines = plan.rows.map((r) => r['QUERY PLAN']);
      const first = q.text.replace(/\s+/g, ' ').trim().slice(0, 110);
      process.stdout.write(`  ${first}…\n${lines.map((l) => `    ${l}`).join('\n')}\n`);
      if (lines.some((l) => /Seq Scan on (assignments|users)\b/.test(l))) process.stdout.write('    ← a sequential scan of a big table\n');
    }
  }
  process.stdout.write(`\nWorst p99: ${worst.toFixed(1)} ms (target < 100 ms)\n`);
  await app.close();
} finally {
  await pool.end();
  await db.close();
}
