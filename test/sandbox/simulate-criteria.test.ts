import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { createPublishedTest } from '../helpers/student.js';
import { simulatedSubmission, testModeTenant } from '../helpers/test-mode.js';

/**
 * `finish_marking` on a test whose essay is marked per criterion: the
 * simulated reviewer gives each criterion its points, as the portal's
 * reviewer does (the mark is their sum), towards the target score. It used
 * to answer 400 naming a portal form field (`criterion-e1-0`).
 */
let h: Harness;
let test: Tenant;
let testId: string;
const P = '/api/partner/v1';

const CRITERIA = [
  { criterion: 'Argument', points: 4, description: 'A claim, with reasons' },
  { criterion: 'Evidence', points: 6, description: 'Sources that bear it out' },
];

const TEST: TestInput = {
  title: 'Essay with criteria',
  description: 'One choice question and an essay marked per criterion.',
  durationMinutes: 30,
  proctoring: 'none',
  marking: 'hybrid',
  resultVisibility: 'after_review',
  passPercent: 50,
  questions: [
    { id: 'sc', type: 'single_choice', prompt: 'Capital of France?', points: 2, options: [{ id: 'a', text: 'Paris' }, { id: 'b', text: 'Lyon' }], correctOptionId: 'a' },
    { id: 'e1', type: 'essay', prompt: 'Argue for or against homework.', points: 10, criteria: CRITERIA },
  ],
};

beforeAll(async () => {
  h = await createHarness();
  test = await testModeTenant(h, h.a);
  testId = await createPublishedTest(h, h.a, TEST);
});
afterAll(() => h?.close());

const simulate = (id: string, body: unknown) => h.partner(test, 'POST', `${P}/assignments/${id}/simulate`, body);

const submitted = (body: Record<string, unknown>) => simulatedSubmission(h, test, testId, body);

const essayMark = async (id: string) => (await h.admin('GET', `/api/admin/v1/assignments/${id}`)).json().items.find((i: { questionId: string }) => i.questionId === 'e1').mark;

describe('simulate finish_marking on a question marked per criterion', () => {
  it('without a score, gives every criterion its full points and completes', async () => {
    const id = await submitted({ answers: [{ questionId: 'sc', value: 'a' }, { questionId: 'e1', value: 'Homework helps.' }] });
    const finished = await simulate(id, { action: 'finish_marking' });
    expect(finished.statusCode, finished.body).toBe(200);
    expect(finished.json()).toMatchObject({ status: 'completed', result: { score: { points: 12, maxPoints: 12, percent: 100, gradingStatus: 'final' } } });
    expect(await essayMark(id)).toMatchObject({
      points: 10,
      source: 'reviewer',
      criteria: [
        { criterion: 'Argument', points: 4, maxPoints: 4 },
        { criterion: 'Evidence', points: 6, maxPoints: 6 },
      ],
    });
  });

  it('with a score, fills the criteria in order up to what the score still lacks', async () => {
    // 60 % of 12 is 7.2: the choice question answered right (2), the essay 5.2 (Argument 4, Evidence 1.2).
    const id = await submitted({ score: 60 });
    const finished = await simulate(id, { action: 'finish_marking' });
    expect(finished.statusCode, finished.body).toBe(200);
    expect(finished.json()).toMatchObject({ status: 'completed', result: { score: { points: 7.2, maxPoints: 12, percent: 60 } } });
    expect((await essayMark(id)).criteria).toMatchObject([
      { criterion: 'Argument', points: 4 },
      { criterion: 'Evidence', points: 1.2 },
    ]);
  });

  it('a score already reached by the auto-marked part gives every criterion 0', async () => {
    const id = await submitted({ answers: [{ questionId: 'sc', value: 'a' }] });
    const finished = await simulate(id, { action: 'finish_marking', score: 10 });
    expect(finished.statusCode, finished.body).toBe(200);
    expect(finished.json()).toMatchObject({ result: { score: { points: 2, percent: 16.67 } } });
    expect((await essayMark(id)).criteria).toMatchObject([
      { criterion: 'Argument', points: 0 },
      { criterion: 'Evidence', points: 0 },
    ]);
  });
});
