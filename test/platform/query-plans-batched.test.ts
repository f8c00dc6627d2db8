import { describe, expect, it } from 'vitest';
import { READ_ASSIGNMENTS_SQL } from '../../src/modules/assignments/assignments-repo.js';
import { SAVE_ANSWERS_BATCH_SQL } from '../../src/modules/attempts/attempts-repo.js';
import { planNodes, usePlanFixture } from '../helpers/plans.js';

/**
 * The plans of the batched statements (the partner reads, and the autosaves,
 * of one event-loop turn in one statement), made as a fresh install makes
 * them: on tiny tables, kept by the prepared statement, then used after the
 * tables have grown without ANALYZE. Every row must still come by primary
 * key: a hash join over the batch would scan whole tables once they are large.
 */
const f = usePlanFixture('Batch Plan College');

/** `n` assignments, each for a user of its own (users grow too), in one statement, without ANALYZE. */
async function grow(n: number, prefix: string): Promise<void> {
  await f.pool.query(
    `WITH u AS (
       INSERT INTO users (id, institution_id, external_user_id, email)
       SELECT $1 || '_u' || g, $2, $1 || '_' || g, 'u@plan.example' FROM generate_series(1, $5) g RETURNING id, external_user_id)
     INSERT INTO assignments (id, institution_id, user_id, test_id, test_version_id, status, callback_url, metadata)
     SELECT u.external_user_id, $2, u.id, $3, $4, 'assigned', 'https://plan.example/r', '{}' FROM u`,
    [prefix, f.institutionId, f.testId, f.testVersionId, n],
  );
}

const nodesOf = planNodes;

describe('the batched partner read', () => {
  it('keeps reading each row by primary key after the tables grow under a plan made when they were tiny', async () => {
    await grow(2, 'asg_tiny');
    await f.client.query(`PREPARE read_assignments(jsonb) AS ${READ_ASSIGNMENTS_SQL}`);
    const reads = (ids: string[], institutions: string[]) => `'${JSON.stringify(ids.map((id, n) => ({ n, id, institution_id: institutions[n] })))}'`;
    const args = reads(['asg_tiny_1', 'asg_tiny_2', 'asg_tiny_1'], [f.institutionId, f.institutionId, 'ins_other']);
    for (let i = 0; i < 6; i++) await f.client.query(`EXECUTE read_assignments(${args})`);

    await grow(5000, 'asg_grown');
    const probe = reads(['asg_tiny_1', 'asg_grown_4000', 'asg_tiny_1'], [f.institutionId, f.institutionId, 'ins_other']);
    const { rows } = await f.client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE read_assignments(${probe})`);
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
    const found = await f.client.query(`EXECUTE read_assignments(${probe})`);
    expect(found.rows.map((r) => [r.n, r.id]).sort((x, y) => x[0] - y[0])).toEqual([
      [0, 'asg_tiny_1'],
      [1, 'asg_grown_4000'],
    ]);
  });
});

describe('the batched autosave', () => {
  /** `n` begun attempts, each with its user's session, in one statement, without ANALYZE. */
  async function growAttempts(n: number, prefix: string): Promise<void> {
    await grow(n, prefix);
    await f.pool.query(
      `WITH a AS (SELECT id, user_id FROM assignments WHERE id LIKE $1 || '%')
       , t AS (INSERT INTO attempts (assignment_id, institution_id, user_id, test_version_id, started_at, deadline_at)
               SELECT a.id, $2, a.user_id, $3, now(), now() + interval '1 hour' FROM a RETURNING user_id)
       INSERT INTO student_sessions (id_hash, institution_id, user_id, csrf_token, created_at, last_seen_at, expires_at)
       SELECT 'h_' || t.user_id, $2, t.user_id, 'csrf', now(), now(), now() + interval '1 hour' FROM t`,
      [prefix, f.institutionId, f.testVersionId],
    );
  }
  const saves = (ids: string[]) =>
    `'${JSON.stringify(
      ids.map((id, req) => ({
        req,
        session_hash: '',
        assignment_id: id,
        institution_id: f.institutionId,
        question_id: 'q1',
        value: JSON.stringify(`answer ${req}`),
        version: Date.now() + req,
        saved_at: new Date().toISOString(),
        deadline_min: new Date(Date.now() - 60_000).toISOString(),
      })),
    )}'`;

  it('finds each attempt and session by primary key after the tables grow under a plan made when they were tiny', async () => {
    await growAttempts(2, 'sav_tiny');
    const userOf = async (id: string) => (await f.pool.query('SELECT user_id FROM assignments WHERE id = $1', [id])).rows[0].user_id as string;
    // Each save carries its own user's session key.
    const args = async (ids: string[]) => {
      const rows = JSON.parse(saves(ids).slice(1, -1)) as Array<Record<string, unknown>>;
      for (const r of rows) r.session_hash = `h_${await userOf(String(r.assignment_id))}`;
      return `'${JSON.stringify(rows)}'`;
    };
    await f.client.query(`PREPARE save_answers(jsonb) AS ${SAVE_ANSWERS_BATCH_SQL}`);
    await f.client.query('BEGIN');
    for (let i = 0; i < 6; i++) await f.client.query(`EXECUTE save_answers(${await args(['sav_tiny_1', 'sav_tiny_2'])})`);
    await f.client.query('ROLLBACK');

    await growAttempts(5000, 'sav_grown');
    await f.client.query('BEGIN');
    const { rows } = await f.client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE save_answers(${await args(['sav_tiny_1', 'sav_grown_4000'])})`);
    const plan = rows[0]['QUERY PLAN'][0];
    const nodes = nodesOf(plan);
    const lookups = nodes.filter((s) => s.relation === 'attempts' || s.relation === 'student_sessions');
    // The attempt by its key: the primary key, or the partial index of open attempts on the same column.
    expect(lookups).toEqual([
      { type: 'Index Scan', index: expect.stringMatching(/^attempts_(pkey|active)$/), relation: 'attempts' },
      { type: 'Index Scan', index: 'student_sessions_pkey', relation: 'student_sessions' },
    ]);
    // No table is scanned whole (the one hash join pairs the batch's own rows with its checked requests).
    expect(nodes.filter((n) => n.type === 'Seq Scan' || n.type === 'Bitmap Heap Scan')).toEqual([]);
    // Both saves were stored: each request's attempt and session were live.
    expect(plan.Plan['Actual Rows']).toBe(2);
    await f.client.query('ROLLBACK');
  });
});

