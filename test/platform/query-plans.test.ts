import { beforeAll, describe, expect, it } from 'vitest';
import { FIND_ASSIGNMENT_SQL } from '../../src/modules/assignments/find-assignment.js';
import { READ_ASSIGNMENT_SQL } from '../../src/modules/assignments/assignments-repo.js';
import { createApiKey } from '../../src/modules/institutions/api-keys.js';
import { planNodes, usePlanFixture } from '../helpers/plans.js';

/**
 * Plans of the hot prepared statements. A prepared statement keeps the
 * generic plan it made early in a connection's life; these tests make that
 * plan while the tables are tiny (a fresh install), grow the tables without
 * ANALYZE (as a burst of creates does before autoanalyze), and check that the
 * cached plan still finds the row by primary key.
 */
const f = usePlanFixture('Plan College');

beforeAll(() => createApiKey(f.pool, f.institutionId, 'plans'));

/** Inserts `n` assignments of the institution in one statement (one user), without ANALYZE. */
async function growAssignments(n: number, prefix: string): Promise<void> {
  await f.pool.query(
    `WITH u AS (INSERT INTO users (id, institution_id, external_user_id, email) VALUES ($1, $2, $1, 'u@plan.example') RETURNING id)
     INSERT INTO assignments (id, institution_id, user_id, test_id, test_version_id, status, callback_url, metadata)
     SELECT $1 || '_' || g, $2, u.id, $3, $4, 'assigned', 'https://plan.example/r', '{}' FROM u, generate_series(1, $5) g`,
    [prefix, f.institutionId, f.testId, f.testVersionId, n],
  );
}

const scansOf = planNodes;

describe('GET /assignments/{id}: the read right after a create burst', () => {
  it('the cached plan of find-assignment still reads one row by primary key after 3,000 creates', async () => {
    await growAssignments(1, 'asg_first');
    await f.client.query(`PREPARE find_assignment(text, text) AS ${FIND_ASSIGNMENT_SQL}`);
    for (let i = 0; i < 6; i++) await f.client.query(`EXECUTE find_assignment('asg_first_1', '${f.institutionId}')`);

    await growAssignments(3000, 'asg_burst');
    const { rows } = await f.client.query(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE find_assignment('asg_first_1', '${f.institutionId}')`,
    );
    const plan = rows[0]['QUERY PLAN'][0];
    const assignmentScans = scansOf(plan).filter((s) => s.relation === 'assignments');
    expect(assignmentScans).toEqual([{ type: 'Index Scan', index: 'assignments_pkey', relation: 'assignments' }]);
    // One row's pages, not the institution's 3,000 entries.
    expect(plan.Plan['Shared Hit Blocks'] + (plan.Plan['Shared Read Blocks'] ?? 0)).toBeLessThan(20);
  });

  it('still answers only for the tenant: another institution id finds nothing', async () => {
    const { rows } = await f.client.query(`EXECUTE find_assignment('asg_first_1', 'ins_other')`);
    expect(rows).toEqual([]);
  });

  it('the partner read with its proctoring counts keeps the same plan: one row by primary key, the counts by theirs', async () => {
    await f.client.query(`PREPARE read_assignment(text, text) AS ${READ_ASSIGNMENT_SQL}`);
    for (let i = 0; i < 6; i++) await f.client.query(`EXECUTE read_assignment('asg_first_1', '${f.institutionId}')`);
    await growAssignments(3000, 'asg_more');
    const { rows } = await f.client.query(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE read_assignment('asg_first_1', '${f.institutionId}')`,
    );
    const plan = rows[0]['QUERY PLAN'][0];
    const scans = scansOf(plan).filter((s) => s.relation === 'assignments' || s.relation === 'proctoring_sessions');
    expect(scans).toEqual([
      { type: 'Index Scan', index: 'assignments_pkey', relation: 'assignments' },
      { type: expect.stringMatching(/^Index (Only )?Scan$/), index: 'proctoring_sessions_pkey', relation: 'proctoring_sessions' },
    ]);
    expect(plan.Plan['Shared Hit Blocks'] + (plan.Plan['Shared Read Blocks'] ?? 0)).toBeLessThan(20);
    const other = await f.client.query(`EXECUTE read_assignment('asg_first_1', 'ins_other')`);
    expect(other.rows).toEqual([]);
  });
});
