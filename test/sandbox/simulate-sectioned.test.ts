import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { testModeTenant } from '../helpers/test-mode.js';
import { createPublishedTest } from '../helpers/student.js';
import { POOL_IDS, sectionedTest } from '../helpers/sectioned.js';
import { SECTIONED_ANSWERS } from '../helpers/sectioned-attempt.js';

/**
 * `simulate` in test mode with a sectioned, pooled test: the answer shapes
 * of the test format for matching, ordering and fill_blanks are accepted and
 * marked; an answer outside the draw is refused; a `score` target counts
 * only the questions drawn.
 */

let h: Harness;
let test: Tenant;
let testId: string;
const P = '/api/partner/v1';

beforeAll(async () => {
  h = await createHarness();
  test = await testModeTenant(h, h.a);
  testId = await createPublishedTest(h, h.a, sectionedTest());
});
afterAll(() => h?.close());

const simulate = (id: string, body: unknown) => h.partner(test, 'POST', `${P}/assignments/${id}/simulate`, body);

/** A started test-mode assignment, with the pool questions drawn for it. */
async function started(): Promise<{ id: string; drawn: string[] }> {
  const res = await h.partner(test, 'POST', `${P}/assignments`, {
    externalUserId: `sim-sec-${Math.random().toString(36).slice(2, 8)}`,
    testId,
    user: { email: 'dev@example.org' },
    callbackUrl: test.callbackUrl,
  });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().assignmentId as string;
  expect((await simulate(id, { action: 'start' })).statusCode).toBe(200);
  const { rows } = await h.pool.query('SELECT delivery FROM attempts WHERE assignment_id = $1', [id]);
  return { id, drawn: rows[0].delivery.sections[0].questionIds };
}

const storedAnswers = async (id: string) => (await h.pool.query('SELECT count(*)::int AS n FROM answers WHERE assignment_id = $1', [id])).rows[0].n;

describe('simulate submit with answers', () => {
  it('accepts matching, ordering and fill_blanks answers and marks them with partial credit', async () => {
    const { id, drawn } = await started();
    const res = await simulate(id, {
      action: 'submit',
      answers: [
        { questionId: drawn[0], value: 'a' },
        { questionId: 'match', value: SECTIONED_ANSWERS.match },
        { questionId: 'order', value: SECTIONED_ANSWERS.order },
        { questionId: 'blanks', value: SECTIONED_ANSWERS.blanks },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    // Pool 2 of 4; matching 2 + ordering 2 + blanks 1 = 5 of 9; the essay unanswered, for marking.
    expect(res.json()).toMatchObject({
      status: 'marking',
      result: {
        score: {
          points: 7,
          maxPoints: 18,
          gradingStatus: 'pending_review',
          sections: [
            { sectionId: 'pool', points: 2, maxPoints: 4 },
            { sectionId: 'skills', points: 5, maxPoints: 9 },
            { sectionId: 'writing', points: 0, maxPoints: 5 },
          ],
        },
      },
    });
    const view = (await h.admin('GET', `/api/admin/v1/assignments/${id}`)).json();
    const mark = (q: string) => view.items.find((i: any) => i.questionId === q).mark?.points;
    expect([mark('match'), mark('order'), mark('blanks')]).toEqual([2, 2, 1]);
  });

  it('refuses an answer to a pool question that was not drawn, and a malformed ordering, storing nothing', async () => {
    const { id, drawn } = await started();
    const undrawn = POOL_IDS.find((q) => !drawn.includes(q))!;
    const notDrawn = expectError(await simulate(id, { action: 'submit', answers: [{ questionId: 'match', value: { paris: 'fr' } }, { questionId: undrawn, value: 'a' }] }), 400, 'invalid_request');
    expect(notDrawn.error.details).toEqual([{ field: 'answers.1.questionId', message: 'was not drawn for this assignment' }]);
    const badOrder = expectError(await simulate(id, { action: 'submit', answers: [{ questionId: 'order', value: ['me', 've'] }] }), 400, 'invalid_request');
    expect(badOrder.error.details).toEqual([{ field: 'answers.0.value', message: expect.stringContaining('permutation') }]);
    expect(await storedAnswers(id)).toBe(0);
    // Still started: nothing was submitted.
    expect((await h.partner(test, 'GET', `${P}/assignments/${id}`)).json().status).toBe('started');
  });
});

describe('simulate with a score target', () => {
  it('reaches the target over the drawn questions only, then finish_marking marks the essay towards its own target', async () => {
    const { id, drawn } = await started();
    // 50 % of 18 = 9: ordering (4) + matching (3) + one pool question (2), answered right.
    const sub = await simulate(id, { action: 'submit', score: 50 });
    expect(sub.statusCode, sub.body).toBe(200);
    expect(sub.json().result.score).toMatchObject({ points: 9, maxPoints: 18, percent: 50, gradingStatus: 'pending_review' });
    const answered = (await h.pool.query('SELECT question_id FROM answers WHERE assignment_id = $1 AND value IS NOT NULL', [id])).rows.map((r) => r.question_id);
    for (const q of answered) expect([...drawn, 'match', 'order', 'blanks', 'essay']).toContain(q);

    // 75 % of 18 = 13.5: the essay gets the 4.5 still missing.
    const fin = await simulate(id, { action: 'finish_marking', score: 75 });
    expect(fin.statusCode, fin.body).toBe(200);
    expect(fin.json().result.score).toMatchObject({
      points: 13.5,
      maxPoints: 18,
      percent: 75,
      gradingStatus: 'final',
      passed: true,
    });
    const sections = fin.json().result.score.sections;
    expect(sections.map((s: any) => s.sectionId)).toEqual(['pool', 'skills', 'writing']);
    expect(sections.find((s: any) => s.sectionId === 'writing')).toMatchObject({ points: 4.5, maxPoints: 5 });
    expect(sections.reduce((n: number, s: any) => n + s.points, 0)).toBe(13.5);
  });
});
