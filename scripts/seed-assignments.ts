import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { Pool } from '../src/platform/db.js';

/**
 * `DATABASE_URL=postgres://… npx tsx scripts/seed-assignments.ts --institution ins_… --test tst_… [--count 1000000]`
 * (or --database-url instead of DATABASE_URL)
 *
 * Fills a database with assignments for load tests (bench/run.ts
 * --seed-assignments uses the same function): `count` assignments of one
 * institution and one published test, with one user per ten assignments,
 * written by PostgreSQL itself (INSERT … SELECT generate_series) in batches
 * of 100,000, each its own transaction, then ANALYZE. Ids look like the
 * service's own (random, so spread over the primary key's index as real ones
 * are); creation times spread over the past year; every assignment is
 * `assigned` with no due date, so none of them schedules work. About a
 * minute per million rows on a small machine.
 */
export interface SeedTarget {
  institutionId: string;
  testId: string;
}

export async function seedAssignments(
  pool: Pool,
  target: SeedTarget,
  opts: { count: number; batch?: number; log?: (line: string) => void },
): Promise<{ assignments: number; users: number; seconds: number }> {
  const batch = opts.batch ?? 100_000;
  const started = performance.now();
  const { rows } = await pool.query<{ id: string }>(
    `SELECT tv.id FROM publications p JOIN tests t ON t.id = p.test_id JOIN test_versions tv ON tv.test_id = t.id AND tv.version = t.current_version
      WHERE p.institution_id = $1 AND p.test_id = $2`,
    [target.institutionId, target.testId],
  );
  if (!rows[0]) throw new Error(`test ${target.testId} is not published to institution ${target.institutionId}`);
  const testVersionId = rows[0].id;
  // A run tag keeps the seeded users' external ids apart from any earlier seeding of the same institution.
  const run = Math.random().toString(36).slice(2, 8);
  let users = 0;
  for (let from = 0; from < opts.count; from += batch) {
    const n = Math.min(batch, opts.count - from);
    const userCount = Math.ceil(n / 10);
    await pool.query(
      `WITH u AS (
         INSERT INTO users (id, institution_id, external_user_id, email, name, created_at, updated_at)
         SELECT 'usr_' || substr(md5(random()::text || g), 1, 22), $1, 'seed-' || $5 || '-' || ($2 + g), 'seed' || g || '@seed.example', NULL, now(), now()
           FROM generate_series(1, $3) g
         RETURNING id),
       numbered AS (SELECT id, row_number() OVER () AS k FROM u)
       INSERT INTO assignments (id, institution_id, user_id, test_id, test_version_id, status, callback_url, metadata, metadata_json, created_at)
       SELECT 'asg_' || substr(md5(random()::text || g), 1, 22), $1, numbered.id, $6, $7, 'assigned', 'https://seed.example/return',
              '{"seeded":true}'::jsonb, '{"seeded":true}', now() - (($2 + g) % 525600) * interval '1 minute'
         FROM generate_series(1, $4) g JOIN numbered ON numbered.k = (g % $3) + 1`,
      [target.institutionId, from, userCount, n, run, target.testId, testVersionId],
    );
    users += userCount;
    opts.log?.(`  ${(from + n).toLocaleString('en-US')} of ${opts.count.toLocaleString('en-US')} assignments`);
  }
  await pool.query('ANALYZE users');
  await pool.query('ANALYZE assignments');
  return { assignments: opts.count, users, seconds: (performance.now() - started) / 1000 };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      institution: { type: 'string' },
      test: { type: 'string' },
      count: { type: 'string', default: '1000000' },
      'database-url': { type: 'string' },
    },
  });
  const count = Number(values.count);
  // A tool beside the service, like the benchmarks: the database from --database-url or DATABASE_URL.
  const databaseUrl = values['database-url'] ?? process.env.DATABASE_URL;
  if (!databaseUrl || !values.institution || !values.test || !Number.isInteger(count) || count < 1) {
    process.stderr.write('usage: DATABASE_URL=postgres://… npx tsx scripts/seed-assignments.ts --institution ins_… --test tst_… [--count 1000000]\n');
    process.exit(2);
  }
  const { createPool } = await import('../src/platform/db.js');
  const pool = createPool(databaseUrl, 2);
  try {
    const done = await seedAssignments(pool, { institutionId: values.institution, testId: values.test }, { count, log: (l) => process.stdout.write(`${l}\n`) });
    process.stdout.write(`seeded ${done.assignments.toLocaleString('en-US')} assignments and ${done.users.toLocaleString('en-US')} users in ${done.seconds.toFixed(1)} s\n`);
  } finally {
    await pool.end();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
