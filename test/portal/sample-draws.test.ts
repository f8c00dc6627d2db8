import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTO_TEST, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { portalJson } from '../helpers/authoring.js';

/**
 * The editor's "Sample draws" (POST /portal/authoring/tests/:id/draft/sample-draws):
 * three draws of the question as written, each with its answer from the
 * server's evaluator, or the authoring checks' refusal at the field.
 */
let h: Harness;
let author: PortalUser;
let testId: string;
beforeAll(async () => {
  h = await createHarness();
  author = await signedIn(h, 'author', h.a.institutionId);
  const created = await portalJson(h, author, 'POST', '/portal/authoring/tests', { content: AUTO_TEST });
  expect(created.statusCode).toBe(201);
  testId = created.json().testId;
});
afterAll(() => h.close());

const draws = (question: unknown) => portalJson(h, author, 'POST', `/portal/authoring/tests/${testId}/draft/sample-draws`, { question });
const question = { type: 'numeric', prompt: 'What is {a} × {b}?', points: 1, variables: [{ name: 'a', min: 2, max: 9, step: 1 }, { name: 'b', values: [0.1, 0.2] }], constraints: ['a != 5'], answerFormula: 'a * b' };

describe('sample draws', () => {
  it('gives three draws within the variables and constraints, each with the answer for its values', async () => {
    const res = await draws(question);
    expect(res.statusCode).toBe(200);
    const body = res.json() as { draws: Array<{ values: { a: number; b: number }; answer: string }> };
    expect(body.draws).toHaveLength(3);
    for (const d of body.draws) {
      expect(d.values.a).toBeGreaterThanOrEqual(2);
      expect(d.values.a).toBeLessThanOrEqual(9);
      expect(d.values.a).not.toBe(5);
      expect([0.1, 0.2]).toContain(d.values.b);
      // Written as a person would: 3 × 0.1 is "0.3".
      expect(d.answer).toBe(String(Number((d.values.a * d.values.b).toPrecision(12))));
    }
  });

  it('refuses a question the authoring checks refuse, at the field, and one without variables', async () => {
    const bad = await draws({ ...question, answerFormula: 'a * c' });
    expect(expectError(bad, 400, 'invalid_request').error.details).toEqual([{ field: 'question.answerFormula', message: 'unknown variable `c` at 5' }]);
    const none = await draws({ type: 'numeric', prompt: 'x', points: 1, answer: 2 });
    expect(expectError(none, 400, 'invalid_request').error.details).toEqual([{ field: 'question.variables', message: 'the question has no variables to draw' }]);
  });
});
