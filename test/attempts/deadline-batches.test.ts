import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobWorker } from '../../src/platform/job-worker.js';
import { jobContext, workerJobs } from '../../src/worker.js';
import { AUTO_SUBMIT_BATCH } from '../../src/modules/marking/run-auto-submit.js';
import { autoSubmitKey } from '../../src/modules/attempts/timing.js';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { Student, assign } from '../helpers/student.js';

/**
 * A shared deadline: the auto-submits of every attempt due at once run in
 * batches (one transaction per batch, marking/submit-attempt.ts), and their
 * results join the rollup in batches too. Whatever the batching, each
 * attempt is submitted once, with its own answers and score, by two worker
 * processes at once as by one; an attempt whose deadline has moved is put
 * back, and one that cannot be submitted fails alone.
 */
const clock = manualClock(new Date('2031-09-01T09:00:00Z'));
const MINUTE = 60_000;
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ clock });
});
afterAll(() => h.close());

describe('the auto-submits of a shared deadline', () => {
  it('submit every due attempt exactly once, in batches across two workers, each with its own answers', async () => {
    const count = AUTO_SUBMIT_BATCH * 2 + 10;
    const started: Array<{ assignmentId: string; right: boolean }> = [];
    for (let i = 0; i < count; i++) {
      const a = await assign(h, h.a, { externalUserId: `burst-${i}` });
      const s = new Student(h);
      await s.start(a.startUrl);
      const q0 = (await h.pool.query(`SELECT q->>'id' AS id FROM attempts at JOIN test_versions tv ON tv.id = at.test_version_id, jsonb_array_elements(tv.questions) q WHERE at.assignment_id = $1 AND q->>'type' = 'single_choice'`, [a.assignmentId])).rows[0].id;
      expect((await s.save(a.assignmentId, [{ questionId: q0, value: i % 2 === 0 ? 'b' : 'a', version: 1 }])).statusCode).toBe(200);
      started.push({ assignmentId: a.assignmentId, right: i % 2 === 0 });
    }
    // One attempt got ten more minutes after its job was scheduled (as a host whose clock ran ahead would see it due early);
    // another is broken: its assignment is no longer `started`, so submitting it breaks an invariant.
    const [moved, broken] = [started[3]!, started[60]!];
    await h.pool.query(`UPDATE attempts SET deadline_at = deadline_at + interval '10 minutes' WHERE assignment_id = $1`, [moved.assignmentId]);
    await h.pool.query(`UPDATE assignments SET status = 'expired' WHERE id = $1`, [broken.assignmentId]);

    clock.advance(21 * MINUTE); // the test's 20 minutes and the grace
    const second = createJobWorker({ pool: h.pool, connectionString: h.databaseUrl, clock, jobs: workerJobs, context: jobContext(h.ctx), concurrency: 4 });
    await Promise.all([h.runJobs(), second.drain()]);

    const { rows } = await h.pool.query(
      `SELECT a.id, a.status, (a.score->>'points')::numeric AS points, at.submitted_by,
              (SELECT count(*)::int FROM events e WHERE e.assignment_id = a.id AND e.type = 'exam.completed') AS completed_events,
              (SELECT count(*)::int FROM result_rollup_attempts r WHERE r.assignment_id = a.id) AS rolled_up
         FROM assignments a JOIN attempts at ON at.assignment_id = a.id WHERE a.id = ANY($1)`,
      [started.map((s) => s.assignmentId)],
    );
    const byId = new Map(rows.map((r) => [r.id as string, r]));
    for (const s of started) {
      const row = byId.get(s.assignmentId)!;
      if (s === moved || s === broken) continue;
      expect(row).toMatchObject({ status: 'completed', submitted_by: 'deadline', completed_events: 1, rolled_up: 1 });
      expect(Number(row.points)).toBe(s.right ? 1 : 0);
    }
    expect(byId.get(moved.assignmentId)).toMatchObject({ status: 'started', submitted_by: null, completed_events: 0 });
    const job = async (id: string) => (await h.pool.query(`SELECT run_at, attempts, last_error FROM jobs WHERE unique_key = $1`, [autoSubmitKey(id)])).rows[0];
    const movedDeadline = (await h.pool.query('SELECT deadline_at FROM attempts WHERE assignment_id = $1', [moved.assignmentId])).rows[0].deadline_at as Date;
    expect((await job(moved.assignmentId)).run_at).toEqual(new Date(movedDeadline.getTime() + 30_000));
    // The broken one failed alone (its batch fell back to one transaction per attempt) and waits for its retry.
    expect(byId.get(broken.assignmentId)).toMatchObject({ status: 'expired', submitted_by: null, completed_events: 0 });
    expect(await job(broken.assignmentId)).toMatchObject({ attempts: 1, last_error: expect.stringContaining('submit') });

    // The moved one is submitted at its own deadline, once.
    clock.advance(10 * MINUTE);
    await h.runJobs();
    expect((await h.pool.query(`SELECT count(*)::int AS n FROM events WHERE assignment_id = $1 AND type = 'exam.completed'`, [moved.assignmentId])).rows[0].n).toBe(1);
    await second.stop();
  });
});
