import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { Student, assign, createPublishedTest, readAssignment } from '../helpers/student.js';
import { rollUpAttempts } from '../../src/modules/results/statistics-repo.js';
import { testModeTenant } from '../helpers/test-mode.js';

/**
 * A slider question through the product: authored through the admin API
 * (refused, storing nothing, when its scale does not hold), answered by
 * autosave and shown again on reload, marked within its tolerance at
 * submission, simulated in test mode, counted in the statistics, and
 * exported to QTI and imported back unchanged.
 */
const EXAMPLE = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/examples/tests/slider.json'), 'utf8')) as TestInput;
const A = '/api/admin/v1';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const withQuestion = (change: (q: Record<string, any>) => void): TestInput => {
  const input = structuredClone(EXAMPLE);
  change(input.questions![0] as Record<string, any>);
  return input;
};
const testCount = async () => Number((await h.pool.query('SELECT count(*) AS n FROM tests')).rows[0].n);

describe('authoring slider questions', () => {
  it('creates the test and reads the question back as written', async () => {
    const created = await h.admin('POST', `${A}/tests`, EXAMPLE);
    expect(created.statusCode, created.body).toBe(201);
    const read = await h.admin('GET', `${A}/tests/${created.json().testId}`);
    expect(read.json().questions[0]).toEqual(EXAMPLE.questions![0]);
  });

  it.each([
    ['max not above min', (q: Record<string, any>) => (q.max = 0), 'questions.0.max'],
    ['a step that does not divide the range', (q: Record<string, any>) => (q.step = 7), 'questions.0.step'],
    ['a correct value off the scale', (q: Record<string, any>) => (q.correct = 101), 'questions.0.correct'],
    ['a step of 0', (q: Record<string, any>) => (q.step = 0), 'questions.0.step'],
    ['a negative tolerance', (q: Record<string, any>) => (q.tolerance = -1), 'questions.0.tolerance'],
  ])('refuses %s in the error envelope, naming the field and storing nothing', async (_what, change, field) => {
    const before = await testCount();
    const err = expectError(await h.admin('POST', `${A}/tests`, withQuestion(change)), 400, 'invalid_request');
    expect(err.error.details?.map((d) => d.field)).toContain(field);
    expect(await testCount()).toBe(before);
  });
});

describe('taking a slider question', () => {
  it('is unanswered until set, saves a point of the scale, shows it on reload, and marks within the tolerance', async () => {
    const testId = await createPublishedTest(h, h.a, EXAMPLE);
    const a = await assign(h, h.a, { externalUserId: 'slider-1', testId });
    const s = new Student(h);
    await s.start(a.startUrl);
    const page = (await s.page(a.assignmentId)).body;
    expect(page).toMatch(/<input type="range" class="slider-input" id="q1-range" min="0" max="150" step="5" value="75" aria-labelledby="question-1-prompt"/);
    expect(page).toContain('id="question-1-prompt"');
    expect(page).toContain('Not answered yet');

    const off = await s.save(a.assignmentId, [{ questionId: 'boiling', value: 96, version: 1 }]);
    expect(expectError(off, 400, 'invalid_request').error.details).toEqual([{ field: 'answers.0.value', message: '96 is not on the scale: 0 to 150 in steps of 5' }]);

    expect((await s.save(a.assignmentId, [{ questionId: 'boiling', value: 105, version: 2 }])).statusCode).toBe(200);
    const row = await h.pool.query('SELECT value FROM answers WHERE assignment_id = $1 AND question_id = $2', [a.assignmentId, 'boiling']);
    expect(row.rows[0].value).toBe(105);
    const again = (await s.page(a.assignmentId)).body;
    expect(again).toContain('value="105" aria-labelledby="question-1-prompt"');
    expect(again).toContain('<output class="slider-value" for="q1-range">105</output>');

    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
    // 105 is within 100 ± 5, inclusive.
    expect((await readAssignment(h, h.a, a.assignmentId)).result.score).toMatchObject({ points: 1, maxPoints: 1, gradingStatus: 'final' });
  });

  it('simulate in test mode sets the correct value for full marks', async () => {
    const sandbox = await testModeTenant(h, h.a);
    const testId = await createPublishedTest(h, sandbox, EXAMPLE);
    const created = await h.partner(sandbox, 'POST', '/api/partner/v1/assignments', { externalUserId: 'simulated-1', testId, user: { email: 'dev@example.org' }, callbackUrl: sandbox.callbackUrl });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().assignmentId as string;
    const simulate = (body: unknown) => h.partner(sandbox, 'POST', `/api/partner/v1/assignments/${id}/simulate`, body);
    expect((await simulate({ action: 'start' })).statusCode).toBe(200);
    const submitted = await simulate({ action: 'submit', score: 100 });
    expect(submitted.statusCode, submitted.body).toBe(200);
    // An auto-marked test is marked at submission.
    expect(submitted.json().status).toBe('completed');
    const answer = await h.pool.query('SELECT value FROM answers WHERE assignment_id = $1 AND question_id = $2', [id, 'boiling']);
    expect(answer.rows[0].value).toBe(100);
  });

  it('statistics count the question with its facility', async () => {
    const testId = await createPublishedTest(h, h.a, EXAMPLE);
    const ids: string[] = [];
    for (const [who, value] of [['stat-1', 100], ['stat-2', 50]] as const) {
      const a = await assign(h, h.a, { externalUserId: who, testId });
      ids.push(a.assignmentId);
      const s = new Student(h);
      await s.start(a.startUrl);
      await s.page(a.assignmentId);
      expect((await s.save(a.assignmentId, [{ questionId: 'boiling', value, version: 1 }])).statusCode).toBe(200);
      expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
    }
    // What the results.roll_up job does for each completed attempt.
    expect(await rollUpAttempts(h.pool, ids)).toBe(2);
    const res = await h.admin('GET', `${A}/tests/${testId}/statistics?institutionId=${h.a.institutionId}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().items.find((i: { questionId: string }) => i.questionId === 'boiling')).toMatchObject({ type: 'slider', attempts: 2, facility: 0.5 });
  });
});

describe('slider through QTI', () => {
  it('exports and imports back the same question and marking', async () => {
    const created = (await h.admin('POST', `${A}/tests`, EXAMPLE)).json();
    const exported = await h.app.inject({ method: 'GET', url: `${A}/tests/${created.testId}/export?format=qti3`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(exported.statusCode).toBe(200);
    const again = await h.app.inject({ method: 'POST', url: `${A}/tests/import`, headers: { 'content-type': 'application/zip', authorization: `Bearer ${ADMIN_TOKEN}` }, payload: exported.rawPayload });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().report.skipped).toEqual([]);
    const test = (await h.admin('GET', `${A}/tests/${again.json().testId}`)).json();
    expect(test.questions[0]).toEqual(EXAMPLE.questions![0]);
  });
});
