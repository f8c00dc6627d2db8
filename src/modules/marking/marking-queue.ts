import type { Queryable } from '../../platform/db.js';
import { joinUserOf } from '../lifecycle/assignment-user-join.js';

/**
 * The marking queue of an institution: assignments in `marking`, oldest
 * submission first (they have waited longest), with how many wait in all and
 * per test. Served by a partial index of the `marking` rows only
 * (assignments_marking_queue), so its cost follows the queue's length, not
 * the institution's history.
 *
 * Test-mode submissions (made with an `ak_test_` key) wait in the same
 * queue, labelled, but are counted apart: `total` and each test's `count`
 * are live work only, `testTotal` and `testCount` the sandbox's.
 *
 * An author's Try it run (`assignments.trial`) is never reviewers' work: a
 * trial left open that the deadline submits waits in `marking` without
 * entering the queue or its counts; its author still reads it on its
 * assignment page.
 */
export interface QueueItem {
  assignmentId: string;
  externalUserId: string;
  /** The student's name when the partner sent one (`user.name`), else null. */
  studentName: string | null;
  testId: string;
  submittedAt: Date | null;
  livemode: boolean;
}

export interface MarkingQueue {
  data: QueueItem[];
  /** Live submissions waiting. */
  total: number;
  /** Test-mode submissions waiting. */
  testTotal: number;
  byTest: Array<{ testId: string; count: number; testCount: number }>;
}

export async function listMarkingQueue(
  db: Queryable,
  input: { institutionId: string; testId?: string | undefined; limit: number; offset: number },
): Promise<MarkingQueue> {
  const [list, counts] = await Promise.all([
    db.query(
      // The page is cut from the index first; only its rows then fetch their user.
      `SELECT q.id, u.external_user_id, u.name, q.test_id, q.submitted_at, q.livemode
         FROM (SELECT id, user_id, test_id, submitted_at, livemode FROM assignments
                WHERE institution_id = $1 AND status = 'marking' AND NOT trial AND ($2::text IS NULL OR test_id = $2)
                ORDER BY submitted_at, id LIMIT $3 OFFSET $4) q
         ${joinUserOf('q')}
        ORDER BY q.submitted_at, q.id`,
      [input.institutionId, input.testId ?? null, input.limit, input.offset],
    ),
    db.query<{ test_id: string; n: number; n_test: number }>(
      `SELECT test_id, (count(*) FILTER (WHERE livemode))::int AS n, (count(*) FILTER (WHERE NOT livemode))::int AS n_test
         FROM assignments WHERE institution_id = $1 AND status = 'marking' AND NOT trial
        GROUP BY test_id ORDER BY count(*) FILTER (WHERE livemode) DESC, count(*) DESC, test_id`,
      [input.institutionId],
    ),
  ]);
  const byTest = counts.rows.map((r) => ({ testId: r.test_id, count: r.n, testCount: r.n_test }));
  return {
    data: list.rows.map((r) => ({ assignmentId: r.id, externalUserId: r.external_user_id, studentName: r.name ?? null, testId: r.test_id, submittedAt: r.submitted_at, livemode: r.livemode })),
    total: byTest.reduce((sum, t) => sum + t.count, 0),
    testTotal: byTest.reduce((sum, t) => sum + t.testCount, 0),
    byTest,
  };
}
