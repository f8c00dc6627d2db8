import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Question } from '../../src/modules/catalog/schemas.js';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { itemsPackage } from '../helpers/qti.js';
import { Student, assign } from '../helpers/student.js';
import { testModeTenant } from '../helpers/test-mode.js';

/**
 * A composite item whose processing does not split by part (a choice and a
 * text entry with a bonus when both are right) through the product:
 * imported through the import route with its processing kept, answered and
 * submitted by a student, marked by running the processing over the
 * composite answer, simulated in test mode, and refused with a 400 when a
 * response names no part.
 */
const A = '/api/admin/v1';
let h: Harness;
let testId: string;
let question: Extract<Question, { type: 'composite' }>;

const importPackage = (zip: Uint8Array, query = '') =>
  h.app.inject({ method: 'POST', url: `${A}/tests/import${query}`, headers: { 'content-type': 'application/zip', authorization: `Bearer ${ADMIN_TOKEN}` }, payload: Buffer.from(zip) });
const countTests = async () => Number((await h.pool.query('SELECT count(*) FROM tests')).rows[0].count);

beforeAll(async () => {
  h = await createHarness();
  const res = await importPackage(itemsPackage(['composite-bonus.xml']));
  expect(res.statusCode, res.body).toBe(201);
  testId = res.json().testId;
  question = (await h.admin('GET', `${A}/tests/${testId}`)).json().questions[0];
  expect((await h.admin('PUT', `${A}/tests/${testId}/publications/${h.a.institutionId}`)).statusCode).toBe(204);
});
afterAll(() => h?.close());

describe('a composite item that keeps its processing', () => {
  it('imports as a composite question with scoring mapping each response to its part, the dry run and QTI 2.2 alike', async () => {
    expect(question).toMatchObject({ type: 'composite', points: 4, scoring: { format: 'qti', responses: [{ identifier: 'CAPITAL', partId: 'CAPITAL' }, { identifier: 'RIVER', partId: 'RIVER' }] } });
    const dry = (await importPackage(itemsPackage(['composite-bonus.xml'], '2.2'), '?dryRun=true')).json();
    expect(dry.report.skipped).toEqual([]);
    expect(dry.test.questions[0].scoring).toEqual(question.scoring);
  });

  it('a submitted answer gets the points the processing gives (the bonus only when both parts are right)', async () => {
    const cases: Array<[Record<string, string>, number]> = [
      [{ CAPITAL: 'paris', RIVER: 'seine' }, 4],
      [{ CAPITAL: 'paris', RIVER: 'Rhone' }, 1],
      [{ RIVER: 'Seine' }, 1],
    ];
    for (const [i, [value, points]] of cases.entries()) {
      const a = await assign(h, h.a, { testId, externalUserId: `bonus-${i}` });
      const s = new Student(h);
      await s.start(a.startUrl);
      await s.page(a.assignmentId);
      expect((await s.save(a.assignmentId, [{ questionId: question.id, value, version: 1 }])).statusCode).toBe(200);
      expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
      const view = (await h.admin('GET', `${A}/assignments/${a.assignmentId}`)).json();
      expect(view.items[0].mark?.points, JSON.stringify(value)).toBe(points);
      expect(view.items[0].scoring).toEqual({ format: 'qti', note: 'Marked by its imported QTI response processing, not by the answer key shown.' });
      const read = (await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${a.assignmentId}`)).json();
      expect(read.result.score).toMatchObject({ points, maxPoints: 4 });
    }
    // Statistics count the question as one item of 4 points, its marks as the processing gave them.
    await h.runJobs();
    const stats = (await h.admin('GET', `${A}/tests/${testId}/statistics?institutionId=${h.a.institutionId}`)).json();
    const item = stats.items.find((i: { questionId: string }) => i.questionId === question.id);
    expect(item).toMatchObject({ type: 'composite', points: 4 });
    expect(item.facility).toBeCloseTo((4 + 1 + 1) / 3 / 4, 6);
  });

  it('the sandbox simulates 100 % with the answer the processing gives full marks', async () => {
    const sandbox = await testModeTenant(h, h.a);
    const created = await h.partner(sandbox, 'POST', '/api/partner/v1/assignments', { externalUserId: 'sim-bonus', testId, user: { email: 'dev@example.org' }, callbackUrl: sandbox.callbackUrl });
    expect(created.statusCode, created.body).toBe(201);
    const simulate = (body: unknown) => h.partner(sandbox, 'POST', `/api/partner/v1/assignments/${created.json().assignmentId}/simulate`, body);
    expect((await simulate({ action: 'start' })).statusCode).toBe(200);
    const done = await simulate({ action: 'submit', score: 100 });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ status: 'completed', result: { score: { points: 4, maxPoints: 4, percent: 100 } } });
  });

  it('authoring it back is accepted; a partId naming no part is a 400 naming the field, creating nothing', async () => {
    const post = (q: unknown) =>
      h.admin('POST', `${A}/tests`, { title: 'Bonus', description: '', durationMinutes: 10, proctoring: 'none', marking: 'auto', resultVisibility: 'immediate', questions: [q] });
    const ok = await post(question);
    expect(ok.statusCode, ok.body).toBe(201);
    expect((await h.admin('GET', `${A}/tests/${ok.json().testId}`)).json().questions[0]).toEqual(question);
    const before = await countTests();
    const bad = structuredClone(question);
    bad.scoring!.responses[1]!.partId = 'OCEAN';
    const err = expectError(await post(bad), 400, 'invalid_request');
    expect(err.error.details).toEqual([
      { field: 'questions.0.scoring.responses.1.partId', message: '"OCEAN" is not a part of this question' },
      { field: 'questions.0.scoring.responses', message: 'maps no response to part "RIVER", so its answer would not count' },
    ]);
    expect(await countTests()).toBe(before);
  });
});
