import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { ALL_TYPES_TEST, Student, assign, createPublishedTest, readAssignment } from '../helpers/student.js';
import { sectionedTest } from '../helpers/sectioned.js';
import { submittedSectioned } from '../helpers/sectioned-attempt.js';

/**
 * Section scores (the score gains `sections` for a test with sections) in
 * exam.completed, the partner's read and grading.done, with the essay
 * marked by a reviewer through the admin marking API; a flat test's score
 * and read keep their v1 shape exactly.
 */

let h: Harness;
let sectionedId: string;
let flatId: string;
beforeAll(async () => {
  h = await createHarness();
  sectionedId = await createPublishedTest(h, h.a, sectionedTest());
  flatId = await createPublishedTest(h, h.a, ALL_TYPES_TEST);
});
afterAll(() => h.close());

async function eventsOf(assignmentId: string) {
  const { rows } = await h.pool.query('SELECT type, data FROM events WHERE assignment_id = $1 ORDER BY sequence', [assignmentId]);
  return rows as Array<{ type: string; data: Record<string, any> }>;
}
const marks = (assignmentId: string, body: unknown) => h.admin('POST', `/api/admin/v1/assignments/${assignmentId}/marks`, body);

describe('a sectioned test with an essay', () => {
  it('carries section scores in exam.completed, the partner read while marking, grading.done and the final read', async () => {
    const { assignmentId } = await submittedSectioned(h, h.a, sectionedId, 'sections-1');

    const pending = await readAssignment(h, h.a, assignmentId);
    expect(pending.status).toBe('marking');
    // 2 + 5 auto points of 18; the essay not yet marked counts 0 in its section.
    expect(pending.result.score).toEqual({
      points: 7,
      maxPoints: 18,
      percent: 38.89,
      passed: null,
      gradingStatus: 'pending_review',
      markedAt: expect.any(String),
      sections: [
        { sectionId: 'pool', title: 'Pool', points: 2, maxPoints: 4, percent: 50 },
        { sectionId: 'skills', title: 'Skills', points: 5, maxPoints: 9, percent: 55.56 },
        { sectionId: 'writing', title: 'Writing', points: 0, maxPoints: 5, percent: 0 },
      ],
    });
    const completed = (await eventsOf(assignmentId)).find((e) => e.type === 'exam.completed')!;
    expect(completed.data.score).toEqual(pending.result.score);

    const done = await marks(assignmentId, { marks: [{ questionId: 'essay', points: 4, comment: 'Vivid.' }], complete: true, markedBy: 'rita@alpha.example' });
    expect(done.statusCode).toBe(200);
    expect(done.json().status).toBe('completed');

    const final = await readAssignment(h, h.a, assignmentId);
    expect(final.status).toBe('completed');
    // 11 of 18 = 61.11% ≥ 50: passed.
    expect(final.result).toEqual({
      available: true,
      reportUrl: expect.any(String),
      score: {
        points: 11,
        maxPoints: 18,
        percent: 61.11,
        passed: true,
        gradingStatus: 'final',
        markedAt: expect.any(String),
        markedBy: 'reviewer',
        sections: [
          { sectionId: 'pool', title: 'Pool', points: 2, maxPoints: 4, percent: 50 },
          { sectionId: 'skills', title: 'Skills', points: 5, maxPoints: 9, percent: 55.56 },
          { sectionId: 'writing', title: 'Writing', points: 4, maxPoints: 5, percent: 80 },
        ],
      },
    });
    const grading = (await eventsOf(assignmentId)).filter((e) => e.type === 'grading.done');
    expect(grading).toHaveLength(1);
    expect(grading[0]!.data.score).toEqual(final.result.score);
    // The section points add up to the score.
    const sum = final.result.score.sections.reduce((n: number, s: any) => n + s.points, 0);
    expect(sum).toBe(final.result.score.points);
  });
});

describe('a flat test', () => {
  /** The score fields of v1, in the order they are written. */
  const V1_SCORE_KEYS = ['points', 'maxPoints', 'percent', 'passed', 'gradingStatus', 'markedAt'];
  const READ_KEYS = [
    'assignmentId', 'status', 'externalUserId', 'testId', 'startUrl', 'startUrlExpiresAt', 'result', 'metadata',
    'createdAt', 'startedAt', 'submittedAt', 'completedAt', 'dueAt', 'proctoring', 'accommodations', 'cancelledAt', 'locale',
  ];

  it('has no sections key in its score anywhere, and its partner read keeps the same keys', async () => {
    const a = await assign(h, h.a, { testId: flatId, externalUserId: 'flat-1' });
    const s = new Student(h);
    await s.start(a.startUrl);
    await s.page(a.assignmentId);
    expect((await s.save(a.assignmentId, [{ questionId: 'sc', value: 'a', version: 1 }, { questionId: 'es', value: 'Tea.', version: 1 }])).statusCode).toBe(200);
    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);

    const pendingRes = await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${a.assignmentId}`);
    const pending = pendingRes.json();
    expect(Object.keys(pending).sort()).toEqual([...READ_KEYS].sort());
    expect(Object.keys(pending.result)).toEqual(['available', 'score']);
    expect(Object.keys(pending.result.score)).toEqual(V1_SCORE_KEYS);
    expect(pendingRes.body).not.toContain('"sections"');

    expect((await marks(a.assignmentId, { marks: [{ questionId: 'es', points: 3 }], complete: true })).statusCode).toBe(200);
    const finalRes = await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${a.assignmentId}`);
    const final = finalRes.json();
    expect(Object.keys(final).sort()).toEqual([...READ_KEYS].sort());
    expect(Object.keys(final.result.score)).toEqual([...V1_SCORE_KEYS, 'markedBy']);
    expect(finalRes.body).not.toContain('"sections"');
    for (const e of await eventsOf(a.assignmentId)) {
      if (e.data.score) expect(Object.keys(e.data.score)).not.toContain('sections');
    }
    // The operator's marking view of a flat test has no sections either.
    const view = (await h.admin('GET', `/api/admin/v1/assignments/${a.assignmentId}`)).json();
    expect(Object.keys(view)).not.toContain('sections');
  });
});
