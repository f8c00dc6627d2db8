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
 * A hot_text question through the product: authored through the admin API
 * (refused, storing nothing, when the text and hotspots disagree), answered
 * by autosave and shown again on reload, marked at submission with partial
 * credit, simulated in test mode, counted in the statistics with its
 * hotspots as options, and exported to QTI and imported back unchanged.
 */
const EXAMPLE = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/examples/tests/hot_text.json'), 'utf8')) as TestInput;
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

describe('authoring hot_text questions', () => {
  it('creates the test and reads the question back as written', async () => {
    const created = await h.admin('POST', `${A}/tests`, EXAMPLE);
    expect(created.statusCode, created.body).toBe(201);
    const read = await h.admin('GET', `${A}/tests/${created.json().testId}`);
    expect(read.json().questions[0]).toEqual(EXAMPLE.questions![0]);
  });

  it.each([
    ['a placeholder naming no hotspot', (q: Record<string, any>) => (q.text += ' {{nope}}'), 'questions.0.text'],
    ['a hotspot not placed', (q: Record<string, any>) => (q.text = q.text.replace('{{mat}}', 'mat')), 'questions.0.hotspots.1.id'],
    ['a key naming no hotspot', (q: Record<string, any>) => (q.correct = ['sat', 'dog']), 'questions.0.correct.1'],
    ['maxChoices below the correct count', (q: Record<string, any>) => (q.maxChoices = 1), 'questions.0.maxChoices'],
    ['a hotspot without a phrase', (q: Record<string, any>) => delete q.hotspots[0].phrase, 'questions.0.hotspots.0.phrase'],
  ])('refuses %s in the error envelope, naming the field and storing nothing', async (_what, change, field) => {
    const before = await testCount();
    const err = expectError(await h.admin('POST', `${A}/tests`, withQuestion(change)), 400, 'invalid_request');
    expect(err.error.details?.map((d) => d.field)).toContain(field);
    expect(await testCount()).toBe(before);
  });
});

describe('taking a hot_text question', () => {
  it('saves the chosen hotspots, shows them pressed on reload, and marks (right − wrong) ÷ correct at submission', async () => {
    const testId = await createPublishedTest(h, h.a, EXAMPLE);
    const a = await assign(h, h.a, { externalUserId: 'hot-text-1', testId });
    const s = new Student(h);
    await s.start(a.startUrl);
    const page = (await s.page(a.assignmentId)).body;
    expect(page).toContain('The old cat <button type="button" class="hot-phrase" data-hotspot-id="sat" aria-pressed="false">sat</button>');
    expect(page).toContain('Choose up to 3 phrases.');

    const tooMany = await s.save(a.assignmentId, [{ questionId: 'verbs', value: ['sat', 'mat', 'purred', 'softly'], version: 1 }]);
    expect(expectError(tooMany, 400, 'invalid_request').error.details).toEqual([{ field: 'answers.0.value', message: 'chooses 4 hotspots; at most 3 may be chosen' }]);

    expect((await s.save(a.assignmentId, [{ questionId: 'verbs', value: ['softly', 'sat', 'purred'], version: 2 }])).statusCode).toBe(200);
    const row = await h.pool.query('SELECT value FROM answers WHERE assignment_id = $1 AND question_id = $2', [a.assignmentId, 'verbs']);
    expect(row.rows[0].value).toEqual(['sat', 'purred', 'softly']);
    const again = (await s.page(a.assignmentId)).body;
    expect(again).toContain('data-hotspot-id="softly" aria-pressed="true"');
    expect(again).toContain('data-hotspot-id="mat" aria-pressed="false"');

    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
    // 2 × (2 right − 1 wrong) ÷ 2 correct = 1.
    expect((await readAssignment(h, h.a, a.assignmentId)).result.score).toMatchObject({ points: 1, maxPoints: 2, gradingStatus: 'final' });
  });

  it('simulate in test mode answers it correctly for full marks', async () => {
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
    const answer = await h.pool.query('SELECT value FROM answers WHERE assignment_id = $1 AND question_id = $2', [id, 'verbs']);
    expect(answer.rows[0].value).toEqual(['sat', 'purred']);
    const mark = await h.pool.query('SELECT points FROM marks WHERE assignment_id = $1 AND question_id = $2', [id, 'verbs']);
    expect(Number(mark.rows[0].points)).toBe(2);
  });

  it('statistics count each hotspot as an option, with how many chose it', async () => {
    const testId = await createPublishedTest(h, h.a, EXAMPLE);
    const ids: string[] = [];
    for (const [who, value] of [['stat-1', ['sat', 'purred']], ['stat-2', ['sat', 'mat']]] as const) {
      const a = await assign(h, h.a, { externalUserId: who, testId });
      ids.push(a.assignmentId);
      const s = new Student(h);
      await s.start(a.startUrl);
      await s.page(a.assignmentId);
      expect((await s.save(a.assignmentId, [{ questionId: 'verbs', value, version: 1 }])).statusCode).toBe(200);
      expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
    }
    // What the results.roll_up job does for each completed attempt.
    expect(await rollUpAttempts(h.pool, ids)).toBe(2);
    const res = await h.admin('GET', `${A}/tests/${testId}/statistics?institutionId=${h.a.institutionId}`);
    expect(res.statusCode, res.body).toBe(200);
    const item = res.json().items.find((i: { questionId: string }) => i.questionId === 'verbs');
    expect(item).toMatchObject({ type: 'hot_text', attempts: 2 });
    expect(item.options.map((o: any) => [o.optionId, o.chosen, o.correct])).toEqual([
      ['sat', 2, true],
      ['mat', 1, false],
      ['purred', 1, true],
      ['softly', 0, false],
    ]);
  });
});

describe('hot_text through QTI', () => {
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
