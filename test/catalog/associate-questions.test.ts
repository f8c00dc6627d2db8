import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { Student, assign, createPublishedTest, readAssignment } from '../helpers/student.js';
import { testModeTenant } from '../helpers/test-mode.js';
import { rollUpAttempts } from '../../src/modules/results/statistics-repo.js';

/**
 * An associate question through the product: authored through the API
 * (refused, storing nothing, when a pair names no item), taken by a student
 * whose answer is saved normalised by autosave and marked per keyed pair at
 * submission, simulated in test mode, counted in the statistics by keyed
 * pair, and exported to QTI and imported back unchanged.
 */
const EXAMPLE = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/examples/tests/associate.json'), 'utf8')) as TestInput;
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

describe('authoring associate questions through the API', () => {
  it('creates the test and reads the question back as written', async () => {
    const created = await h.admin('POST', `${A}/tests`, EXAMPLE);
    expect(created.statusCode, created.body).toBe(201);
    const q = (await h.admin('GET', `${A}/tests/${created.json().testId}`)).json().questions[0];
    expect(q).toEqual({ ...EXAMPLE.questions![0] });
  });

  it.each([
    ['a pair naming no item', (q: Record<string, any>) => (q.pairs[1].b = 'tiny'), { field: 'questions.0.pairs.1.b', message: '"tiny" is not an item of this question' }],
    ['an item paired with itself', (q: Record<string, any>) => (q.pairs[0].b = 'big'), { field: 'questions.0.pairs.0.b', message: 'pairs an item with itself; a pair is two different items' }],
    ['maxAssociations below the pairs', (q: Record<string, any>) => (q.maxAssociations = 2), { field: 'questions.0.maxAssociations', message: 'must be at least the number of keyed pairs (3), or no answer could hold the whole key' }],
  ])('refuses %s in the error envelope with the field named, creating nothing', async (_what, change, detail) => {
    const before = await testCount();
    const err = expectError(await h.admin('POST', `${A}/tests`, withQuestion(change)), 400, 'invalid_request');
    expect(err.error.details).toEqual([detail]);
    expect(await testCount()).toBe(before);
  });

  it('refuses a field the type does not have', async () => {
    const err = expectError(await h.admin('POST', `${A}/tests`, withQuestion((q) => (q.matchMax = 1))), 400, 'invalid_request');
    expect(err.error.details?.some((d) => d.field.startsWith('questions.0'))).toBe(true);
  });
});

describe('taking an associate question', () => {
  it('saves the pairs made, normalised, shows them after a reload and marks each keyed pair at submission', async () => {
    const testId = await createPublishedTest(h, h.a, EXAMPLE);
    const a = await assign(h, h.a, { externalUserId: 'associate-1', testId });
    const s = new Student(h);
    await s.start(a.startUrl);
    const page = (await s.page(a.assignmentId)).body;
    expect(page).toContain('data-type="associate"');
    expect(page).toContain('<label for="q1-first">First item</label>');
    expect(page).toContain('You can make at most 3 pairs.');

    const refused = await s.save(a.assignmentId, [{ questionId: 'synonyms', value: [['big', 'big']], version: 1 }]);
    expect(expectError(refused, 400, 'invalid_request').error.details?.[0]).toMatchObject({ field: 'answers.0.value', message: expect.stringContaining('pairs "big" with itself') });
    const tooMany = await s.save(a.assignmentId, [{ questionId: 'synonyms', value: [['big', 'large'], ['small', 'little'], ['quick', 'fast'], ['big', 'fast']], version: 1 }]);
    expect(expectError(tooMany, 400, 'invalid_request').error.details?.[0]?.message).toContain('at most 3');

    // big–large right, small–fast wrong, fast–quick right (written the other way round).
    const saved = await s.save(a.assignmentId, [{ questionId: 'synonyms', value: [['large', 'big'], ['small', 'fast'], ['fast', 'quick']], version: 2 }]);
    expect(saved.statusCode, saved.body).toBe(200);
    const row = await h.pool.query('SELECT value FROM answers WHERE assignment_id = $1 AND question_id = $2', [a.assignmentId, 'synonyms']);
    expect(row.rows[0].value).toEqual([['big', 'large'], ['small', 'fast'], ['quick', 'fast']]);
    const again = (await s.page(a.assignmentId)).body;
    expect(again).toContain('aria-label="Remove pair: small and fast"');
    expect(again).toContain('<span class="assoc-count">3 of at most 3</span>');

    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
    const read = await readAssignment(h, h.a, a.assignmentId);
    // 1 + 0 + 1 of 3.
    expect(read.result.score).toMatchObject({ points: 2, maxPoints: 3, gradingStatus: 'final' });

    // Statistics count each keyed pair made (ids in item order), whichever way it was written; the roll-up job's step is run here.
    expect(await rollUpAttempts(h.pool, [a.assignmentId])).toBe(1);
    const stats = await h.admin('GET', `${A}/tests/${testId}/statistics?institutionId=${h.a.institutionId}`);
    expect(stats.statusCode, stats.body).toBe(200);
    const item = stats.json().items[0];
    expect(item).toMatchObject({ questionId: 'synonyms', type: 'associate', attempts: 1 });
    expect(item.options.map((o: any) => [o.optionId, o.chosen, o.correct])).toEqual([
      ['big+large', 1, true],
      ['small+little', 0, true],
      ['quick+fast', 1, true],
    ]);
  });

  it('test mode simulates a full-marks answer', async () => {
    const testId = await createPublishedTest(h, h.b, EXAMPLE);
    const test = await testModeTenant(h, h.b);
    const simulate = (id: string, body: unknown) => h.partner(test, 'POST', `/api/partner/v1/assignments/${id}/simulate`, body);
    const created = await h.partner(test, 'POST', '/api/partner/v1/assignments', { externalUserId: 'sim-associate', testId, user: { email: 'dev@example.org' }, callbackUrl: test.callbackUrl });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().assignmentId as string;
    expect((await simulate(id, { action: 'start' })).statusCode).toBe(200);
    const submitted = await simulate(id, { action: 'submit', score: 100 });
    expect(submitted.statusCode, submitted.body).toBe(200);
    expect(submitted.json()).toMatchObject({ status: 'completed', result: { score: { points: 3, maxPoints: 3 } } });
    const row = await h.pool.query('SELECT value FROM answers WHERE assignment_id = $1 AND question_id = $2', [id, 'synonyms']);
    expect(row.rows[0].value).toEqual([['big', 'large'], ['small', 'little'], ['quick', 'fast']]);
  });
});

describe('associate questions in QTI', () => {
  it('exports a qti-associate-interaction that imports back to the same question and marking', async () => {
    const weighted = withQuestion((q) => {
      q.points = 2;
      q.pairs = [{ a: 'big', b: 'large', points: 1.5 }, { a: 'small', b: 'little' }, { a: 'quick', b: 'fast', points: 0.25 }];
    });
    const created = await h.admin('POST', `${A}/tests`, weighted);
    expect(created.statusCode, created.body).toBe(201);
    const exported = await h.admin('GET', `${A}/tests/${created.json().testId}/export?format=qti3`);
    expect(exported.statusCode).toBe(200);
    const imported = await h.app.inject({
      method: 'POST',
      url: `${A}/tests/import`,
      headers: { 'content-type': 'application/zip', authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: exported.rawPayload,
    });
    expect(imported.statusCode, imported.body).toBe(201);
    expect(imported.json().report).toMatchObject({ imported: 1, skipped: [] });
    const back = (await h.admin('GET', `${A}/tests/${imported.json().testId}`)).json().questions[0];
    // The middle pair's default share (2 ÷ 3) is written as its value and read back as the default.
    expect(back).toEqual(weighted.questions![0]);
  });
});

describe('an associate part of a composite question', () => {
  it('is authored, marked per keyed pair inside the composite, and round-trips through QTI', async () => {
    const q = EXAMPLE.questions![0] as Record<string, any>;
    const input = structuredClone(EXAMPLE);
    input.questions = [
      {
        type: 'composite',
        id: 'words',
        prompt: 'Two parts on words.',
        parts: [
          { id: 'pick', type: 'single_choice', prompt: 'Which is a noun?', points: 1, options: [{ id: 'a', text: 'cat' }, { id: 'b', text: 'run' }], correctOptionId: 'a' },
          { id: 'syn', type: 'associate', prompt: q.prompt, points: 3, items: q.items, pairs: q.pairs, maxAssociations: 3 },
        ],
      } as any,
    ];
    const testId = await createPublishedTest(h, h.a, input);
    const a = await assign(h, h.a, { externalUserId: 'associate-part', testId });
    const s = new Student(h);
    await s.start(a.startUrl);
    expect((await s.page(a.assignmentId)).body).toContain('<label for="q1-p2-first">First item</label>');
    const saved = await s.save(a.assignmentId, [{ questionId: 'words', value: { pick: 'a', syn: [['large', 'big'], ['small', 'fast']] }, version: 1 }]);
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
    // pick 1 + syn (big–large 1, small–fast 0) = 2 of 4.
    expect((await readAssignment(h, h.a, a.assignmentId)).result.score).toMatchObject({ points: 2, maxPoints: 4 });

    const exported = await h.admin('GET', `${A}/tests/${testId}/export?format=qti3`);
    const imported = await h.app.inject({ method: 'POST', url: `${A}/tests/import`, headers: { 'content-type': 'application/zip', authorization: `Bearer ${ADMIN_TOKEN}` }, payload: exported.rawPayload });
    expect(imported.statusCode, imported.body).toBe(201);
    const back = (await h.admin('GET', `${A}/tests/${imported.json().testId}`)).json().questions[0];
    expect(back.parts[1]).toEqual(input.questions[0]!.type === 'composite' ? (input.questions[0] as any).parts[1] : null);
  }, 90_000);
});
