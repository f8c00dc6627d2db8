import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { Student, assign, createPublishedTest, readAssignment } from '../helpers/student.js';

/**
 * A parametrised numeric question over 200 attempts begun through the
 * student page: the values are drawn when the attempt begins, stored with
 * the delivery, shown on the page (the same on reload), and marked against
 * the formula for those values. The draw must spread evenly: no fixed seed
 * (the CSPRNG), and a chi-square goodness-of-fit test computed here must
 * not reject uniformity at p ≤ 0.001 (a correct implementation fails this
 * about once in a thousand runs), as the pool spread test does for pools.
 */

const RUNS = 200;
const A_VALUES = [1, 2, 3, 4, 5];
const B_VALUES = [10, 20, 30];
const TEST: TestInput = {
  title: 'Calculated',
  description: 'Calculated questions.',
  durationMinutes: 30,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  questions: [
    {
      id: 'calc',
      type: 'numeric',
      prompt: 'A box holds {a} rows of {b} eggs. How many eggs are in {n} boxes?',
      points: 2,
      variables: [
        { name: 'a', min: 1, max: 5, step: 1 },
        { name: 'b', values: B_VALUES },
        { name: 'n', min: 0.5, max: 2, step: 0.5 },
      ],
      constraints: ['a * n != 3'],
      answerFormula: 'a * b * n',
    },
    { id: 'plain', type: 'numeric', prompt: 'What is 6 × 7?', points: 1, answer: 42 },
  ],
};

let h: Harness;
let testId: string;
const deliveries: Array<{ assignmentId: string; values: Record<string, Record<string, number>> }> = [];

beforeAll(async () => {
  h = await createHarness();
  testId = await createPublishedTest(h, h.a, TEST);
  for (let i = 0; i < RUNS; i++) {
    const a = await assign(h, h.a, { testId, externalUserId: `calc-${i}` });
    await new Student(h).start(a.startUrl);
  }
  const { rows } = await h.pool.query('SELECT s.id, a.delivery FROM attempts a JOIN assignments s ON s.id = a.assignment_id WHERE s.test_id = $1', [testId]);
  deliveries.push(...rows.map((r) => ({ assignmentId: r.id, values: r.delivery.values })));
}, 300_000);
afterAll(() => h.close());

/** Pearson's chi-square statistic of observed counts against equal expected counts. */
function chiSquare(counts: number[]): number {
  const total = counts.reduce((a, b) => a + b, 0);
  const expected = total / counts.length;
  return counts.reduce((sum, c) => sum + (c - expected) ** 2 / expected, 0);
}

/** P(X ≥ x) for a chi-square variable with an even number of degrees of freedom k (exact). */
function chiSquarePValue(x: number, k: number): number {
  if (k % 2 !== 0) throw new Error('even degrees of freedom only');
  let term = 1;
  let sum = 1;
  for (let i = 1; i < k / 2; i++) {
    term *= x / 2 / i;
    sum += term;
  }
  return Math.exp(-x / 2) * sum;
}

describe('the values drawn over 200 attempts', () => {
  it('are stored with each delivery, for the parametrised question only, within their ranges and constraints', () => {
    expect(deliveries).toHaveLength(RUNS);
    for (const d of deliveries) {
      expect(Object.keys(d.values)).toEqual(['calc']);
      const { a, b, n } = d.values['calc']!;
      expect(A_VALUES).toContain(a);
      expect(B_VALUES).toContain(b);
      expect([0.5, 1, 1.5, 2]).toContain(n);
      expect(a! * n!).not.toBe(3);
    }
  });

  it('spread a range variable evenly over its steps (chi-square, 4 degrees of freedom, p > 0.001)', () => {
    const counts = A_VALUES.map((v) => deliveries.filter((d) => d.values['calc']!.a === v).length);
    const p = chiSquarePValue(chiSquare(counts), A_VALUES.length - 1);
    expect(p, `counts ${counts.join(', ')}`).toBeGreaterThan(0.001);
  });

  it('spread a list variable evenly over its values (chi-square, 2 degrees of freedom, p > 0.001)', () => {
    const counts = B_VALUES.map((v) => deliveries.filter((d) => d.values['calc']!.b === v).length);
    const p = chiSquarePValue(chiSquare(counts), B_VALUES.length - 1);
    expect(p, `counts ${counts.join(', ')}`).toBeGreaterThan(0.001);
  });
});

describe("one candidate's parametrised question", () => {
  it('shows their values, keeps them on reload, and marks the answer for those values full', async () => {
    const a = await assign(h, h.a, { testId, externalUserId: 'calc-one' });
    const s = new Student(h);
    await s.start(a.startUrl);
    const { rows } = await h.pool.query('SELECT delivery FROM attempts WHERE assignment_id = $1', [a.assignmentId]);
    const { a: rows_, b, n } = rows[0].delivery.values.calc;
    const page = await s.page(a.assignmentId);
    expect(page.body).toContain(`A box holds ${rows_} rows of ${b} eggs. How many eggs are in ${n} boxes?`);
    expect(page.body).not.toContain('{a}');
    expect((await s.page(a.assignmentId)).body).toContain(`A box holds ${rows_} rows of ${b} eggs.`);
    const saved = await s.save(a.assignmentId, [
      { questionId: 'calc', value: String(rows_ * b * n), version: 1 },
      { questionId: 'plain', value: '41', version: 1 },
    ]);
    expect(saved.statusCode).toBe(200);
    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
    expect((await readAssignment(h, h.a, a.assignmentId)).result.score).toMatchObject({ points: 2, maxPoints: 3 });
  });

  it('marks an answer right for another draw but wrong for theirs as wrong', async () => {
    const a = await assign(h, h.a, { testId, externalUserId: 'calc-two' });
    const s = new Student(h);
    await s.start(a.startUrl);
    const { rows } = await h.pool.query('SELECT delivery FROM attempts WHERE assignment_id = $1', [a.assignmentId]);
    const { a: x, b, n } = rows[0].delivery.values.calc;
    await s.page(a.assignmentId);
    await s.save(a.assignmentId, [{ questionId: 'calc', value: String(x * b * n + 1), version: 1 }]);
    await s.submit(a.assignmentId);
    expect((await readAssignment(h, h.a, a.assignmentId)).result.score).toMatchObject({ points: 0, maxPoints: 3 });
  });

  it('an attempt stored without values (begun before variables existed) still opens and marks', async () => {
    const plainTest = await createPublishedTest(h, h.a, { ...TEST, questions: [TEST.questions![1]!] });
    const a = await assign(h, h.a, { testId: plainTest, externalUserId: 'calc-old' });
    const s = new Student(h);
    await s.start(a.startUrl);
    const { rows } = await h.pool.query('SELECT delivery FROM attempts WHERE assignment_id = $1', [a.assignmentId]);
    expect(rows[0].delivery.values).toBeUndefined();
    await s.page(a.assignmentId);
    await s.save(a.assignmentId, [{ questionId: 'plain', value: '42', version: 1 }]);
    await s.submit(a.assignmentId);
    expect((await readAssignment(h, h.a, a.assignmentId)).result.score).toMatchObject({ points: 1, maxPoints: 1 });
  });
});

describe('authoring a parametrised question', () => {
  it('refuses unsatisfiable constraints and a bad formula with the field and position, creating nothing', async () => {
    const calc = TEST.questions![0] as Extract<NonNullable<TestInput['questions']>[number], { type: 'numeric' }>;
    const before = (await h.pool.query('SELECT count(*)::int AS n FROM tests')).rows[0].n;
    const res = await h.admin('POST', '/api/admin/v1/tests', { ...TEST, questions: [{ ...calc, constraints: ['a > 5'], answerFormula: 'a * b * q' }] });
    const body = expectError(res, 400, 'invalid_request');
    expect(body.error.details).toEqual([{ field: 'questions.0.answerFormula', message: 'unknown variable `q` at 9' }]);
    const unsatisfiable = await h.admin('POST', '/api/admin/v1/tests', { ...TEST, questions: [{ ...calc, constraints: ['a > 5'] }] });
    expect(expectError(unsatisfiable, 400, 'invalid_request').error.details).toEqual([
      { field: 'questions.0.constraints', message: 'no draw of 1,000 tries meets the constraints with a calculable answer; widen the variables or loosen the constraints' },
    ]);
    const noAnswer = await h.admin('POST', '/api/admin/v1/tests', { ...TEST, questions: [{ type: 'numeric', prompt: 'x', points: 1 }] });
    expect(expectError(noAnswer, 400, 'invalid_request').error.details).toEqual([{ field: 'questions.0.answer', message: 'is required (or answerFormula, with variables)' }]);
    expect((await h.pool.query('SELECT count(*)::int AS n FROM tests')).rows[0].n).toBe(before);
  });
});
