import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { simulatedSubmission, testModeTenant } from '../helpers/test-mode.js';
import { ALL_TYPES_TEST, createPublishedTest } from '../helpers/student.js';

/**
 * A `score` given to `submit` is the target of the whole simulated run: a
 * later `finish_marking` without its own `score` marks the essay towards the
 * same percentage, not to full points. (ALL_TYPES_TEST: 10 auto-marked
 * points and a 10-point essay, after_review.)
 */
let h: Harness;
let test: Tenant;
let testId: string;
const P = '/api/partner/v1';

beforeAll(async () => {
  h = await createHarness();
  test = await testModeTenant(h, h.a);
  testId = await createPublishedTest(h, h.a, ALL_TYPES_TEST);
});
afterAll(() => h?.close());

const simulate = (id: string, body: unknown) => h.partner(test, 'POST', `${P}/assignments/${id}/simulate`, body);

const submitted = (body: Record<string, unknown>) => simulatedSubmission(h, test, testId, body);

describe('simulate: the submitted score carries through to finish_marking', () => {
  it('submit with score 80, then finish_marking without a score, ends at 80 %', async () => {
    const id = await submitted({ score: 80 });
    const finished = await simulate(id, { action: 'finish_marking' });
    expect(finished.statusCode, finished.body).toBe(200);
    expect(finished.json()).toMatchObject({ status: 'completed', result: { score: { points: 16, maxPoints: 20, percent: 80, gradingStatus: 'final' } } });
  });

  it("finish_marking's own score still wins over the submitted one", async () => {
    const id = await submitted({ score: 80 });
    const finished = await simulate(id, { action: 'finish_marking', score: 60 });
    expect(finished.json()).toMatchObject({ result: { score: { points: 12, percent: 60 } } });
  });

  it('without any score, finish_marking gives the items awaiting a mark full points, as before', async () => {
    const id = await submitted({});
    const finished = await simulate(id, { action: 'finish_marking' });
    // Nothing answered: 0 auto-marked points, the (empty) essay marked in full.
    expect(finished.json()).toMatchObject({ result: { score: { points: 10, maxPoints: 20, percent: 50 } } });
  });

  it('a failed finish_marking (wrong status) keeps the target for the run', async () => {
    const id = await submitted({ score: 40 });
    const again = await simulate(id, { action: 'submit', score: 100 });
    expect(again.statusCode).toBe(409);
    const finished = await simulate(id, { action: 'finish_marking' });
    expect(finished.json()).toMatchObject({ result: { score: { points: 8, percent: 40 } } });
  });
});
