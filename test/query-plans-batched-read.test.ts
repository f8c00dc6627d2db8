import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_ASSIGNMENTS_SQL } from '../src/modules/assignments/assignments-repo.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { createTest, findPublishedTest, publishTest } from '../src/modules/tests/tests-service.js';
import { createPool, type Pool } from '../src/platform/db.js';
import { createTestDatabase } from './helpers/database.js';
import { AUTO_TEST } from './helpers/harness.js';

/**
 * The plan of the batched partner read (the reads of one event-loop turn in
 * one statement), made as a fresh install makes it: on tiny tables, kept by
 * the prepared statement, then used after the tables have grown without
 * ANALYZE. Every row must still come by primary key: a hash join over the
 * reads would scan all assignments and users once the tables are large.
 */
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: Pool;
let client: pg.Client;
let institutionId: string;
let testId: string;
let testVersionId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 2);
  institutionId = (await createInstitution(pool, { name: 'Batch Plan College', callbackDomains: ['plan.example'] })).institutionId;
  testId = (await createTest(pool, AUTO_TEST)).testId;
  await publishTest(pool, testId, institutionId);
  testVersionId = (await findPublishedTest(pool, institutionId, testId))!.testVersionId;
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query('SET plan_cache_mode = force_generic_plan');
});
afterAll(async () => {
  await client.end();
  await pool.end();
  await db.drop();
});

/** `n` assignments, each for a user of its own (users grow too), in one statement, without ANALYZE. */
async function grow(n: number, prefix: string): Promise<void> {
  await pool.query(
    `WITH u AS (
       INSERT INTO users (id, institution_id, external_user_id, email)
       SELECT $1 || '_u' || g, $2, $1 || '_' || g, 'u@plan.example' FROM generate_series(1, $5) g RETURNING id, external_user_id)
     INSERT INTO assignments (id, institution_id, user_id, test_id, test_version_id, status, callback_url, metadata)
     SELECT u.external_user_id, $2, u.id, $3, $4, 'assigned', 'https://plan.example/r', '{}' FROM u`,
    [prefix, institutionId, testId, testVersionId, n],
  );
}

function nodesOf(plan: any): Array<{ type: string; index?: string; relation?: string }> {
  const out: Array<{ type: string; index?: string; relation?: string }> = [];
  const walk = (node: any) => {
    out.push({ type: node['Node Type'], index: node['Index Name'], relation: node['Relation Name'] });
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(plan.Plan);
  return out;
}

describe('the batched partner read', () => {
  it('keeps reading each row by primary key after the tables grow under a plan made when they were tiny', async () => {
    await grow(2, 'asg_tiny');
    await client.query(`PREPARE read_assignments(jsonb) AS ${READ_ASSIGNMENTS_SQL}`);
    const reads = (ids: string[], institutions: string[]) => `'${JSON.stringify(ids.map((id, n) => ({ n, id, institution_id: institutions[n] })))}'`;
    const args = reads(['asg_tiny_1', 'asg_tiny_2', 'asg_tiny_1'], [institutionId, institutionId, 'ins_other']);
    for (let i = 0; i < 6; i++) await client.query(`EXECUTE read_assignments(${args})`);

    await grow(5000, 'asg_grown');
    const probe = reads(['asg_tiny_1', 'asg_grown_4000', 'asg_tiny_1'], [institutionId, institutionId, 'ins_other']);
    const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE read_assignments(${probe})`);
    const plan = rows[0]['QUERY PLAN'][0];
    const nodes = nodesOf(plan);
    const scans = nodes.filter((s) => s.relation === 'assignments' || s.relation === 'users');
    expect(scans).toEqual([
      { type: 'Index Scan', index: 'assignments_pkey', relation: 'assignments' },
      { type: 'Index Scan', index: 'users_pkey', relation: 'users' },
    ]);
    expect(nodes.some((n) => n.type === 'Hash Join' || n.type === 'Seq Scan')).toBe(false);
    // Three reads' pages, not the 5,000 rows'.
    expect(plan.Plan['Shared Hit Blocks'] + (plan.Plan['Shared Read Blocks'] ?? 0)).toBeLessThan(60);

    // Each pair answers for its own tenant only: the third names another institution.
    const found = await client.query(`EXECUTE read_assignments(${probe})`);
    expect(found.rows.map((r) => [r.n, r.id]).sort((x, y) => x[0] - y[0])).toEqual([
      [0, 'asg_tiny_1'],
      [1, 'asg_grown_4000'],
    ]);
  });
});
