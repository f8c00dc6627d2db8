import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { Student, assign, createPublishedTest, readAssignment } from '../helpers/student.js';

/**
 * A composite question through the product: authored through the API
 * (refused when its parts break the schema), taken by a student whose page
 * shows each part as a group named Part 1, Part 2, …, answered with a
 * nested answer by autosave, and marked at submission as the sum of the parts.
 */
const EXAMPLE = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/examples/tests/composite.json'), 'utf8')) as TestInput;

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const withComposite = (change: (q: Record<string, any>) => void): TestInput => {
  const input = structuredClone(EXAMPLE);
  change(input.questions![0] as Record<string, any>);
  return input;
};
const testCount = async () => Number((await h.pool.query('SELECT count(*) AS n FROM tests')).rows[0].n);

describe('authoring composite questions through the API', () => {
  it('creates the test and reads the question back with its parts and summed points', async () => {
    const created = await h.admin('POST', '/api/admin/v1/tests', EXAMPLE);
    expect(created.statusCode).toBe(201);
    const read = await h.admin('GET', `/api/admin/v1/tests/${created.json().testId}`);
    const q = read.json().questions[0];
    expect(q).toMatchObject({ id: 'ball', type: 'composite', points: 6 });
    expect(q.parts.map((p: { id: string; type: string }) => `${p.id}:${p.type}`)).toEqual(['time:numeric', 'energy:single_choice', 'unit:short_text', 'order:ordering']);
  });

  it.each([
    ['a single part', (q: Record<string, any>) => (q.parts = q.parts.slice(0, 1)), 'questions.0.parts'],
    ['21 parts', (q: Record<string, any>) => (q.parts = Array.from({ length: 21 }, (_, i) => ({ ...q.parts[2], id: `p${i}` }))), 'questions.0.parts'],
    ['an essay part', (q: Record<string, any>) => (q.parts[2] = { id: 'why', type: 'essay', prompt: 'Why?', points: 1 }), 'questions.0.parts.2'],
    ['a composite part', (q: Record<string, any>) => (q.parts[2] = { ...structuredClone(q), id: 'inner' }), 'questions.0.parts.2'],
    ['a part without an id', (q: Record<string, any>) => delete q.parts[1].id, 'questions.0.parts.1'],
    ['AI marking on a part', (q: Record<string, any>) => (q.parts[2].aiMarking = { mode: 'suggest', minConfidence: 0.5 }), 'questions.0.parts.2'],
  ])('refuses %s in the error envelope, creating nothing', async (_what, change, field) => {
    const before = await testCount();
    const res = await h.admin('POST', '/api/admin/v1/tests', withComposite(change));
    const err = expectError(res, 400, 'invalid_request');
    expect(err.error.details?.some((d) => d.field.startsWith(field))).toBe(true);
    expect(await testCount()).toBe(before);
  });

  it("refuses a part that breaks its own type's rule with the part's path", async () => {
    const res = await h.admin('POST', '/api/admin/v1/tests', withComposite((q) => (q.parts[1].correctOptionId = 'water')));
    const err = expectError(res, 400, 'invalid_request');
    expect(err.error.details).toEqual([{ field: 'questions.0.parts.1.correctOptionId', message: '"water" is not one of the options' }]);
  });
});

describe('taking a composite question', () => {
  it('shows each part as a named group, saves the nested answer, and marks the sum of the parts at submission', async () => {
    const testId = await createPublishedTest(h, h.a, EXAMPLE);
    const a = await assign(h, h.a, { externalUserId: 'composite-1', testId });
    const s = new Student(h);
    await s.start(a.startUrl);
    const page = (await s.page(a.assignmentId)).body;
    expect(page).toContain('data-type="composite"');
    const legends = [...page.matchAll(/<legend class="part-legend">(Part \d)/g)].map((m) => m[1]);
    expect(legends).toEqual(['Part 1', 'Part 2', 'Part 3', 'Part 4']);
    // Each part's field is named for its place: "Your answer to question 1, part 1".
    expect(page).toContain('<span class="sr-only"> to question 1, part 1</span>');
    expect(page).toContain('id="q1-p2-o1"');

    const refused = await s.save(a.assignmentId, [{ questionId: 'ball', value: { energy: 'water' }, version: 1 }]);
    expect(expectError(refused, 400, "invalid_request").error.details).toEqual([{ field: 'answers.0.value', message: 'part "energy" "water" is not an option of this question' }]);

    const value = { time: '2', energy: 'kinetic', unit: 'Joule', order: ['rest', 'ground', 'half'] };
    const saved = await s.save(a.assignmentId, [
      { questionId: 'ball', value, version: 2 },
      { questionId: 'drag', value: 'yes', version: 2 },
    ]);
    expect(saved.statusCode).toBe(200);
    const row = await h.pool.query('SELECT value FROM answers WHERE assignment_id = $1 AND question_id = $2', [a.assignmentId, 'ball']);
    expect(row.rows[0].value).toEqual(value);
    // The reload shows the saved answer in the parts' fields.
    const again = (await s.page(a.assignmentId)).body;
    expect(again).toMatch(/id="q1-p1-input" name="q1-p1" value="2"/);

    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
    const read = await readAssignment(h, h.a, a.assignmentId);
    // time 2 + energy 0 + unit 1 + order (1 of 3 in place) 2 × 1/3 + drag 1.
    expect(read.result.score).toMatchObject({ points: 4.67, maxPoints: 7, gradingStatus: 'final' });
    const mark = await h.pool.query('SELECT points FROM marks WHERE assignment_id = $1 AND question_id = $2', [a.assignmentId, 'ball']);
    expect(Number(mark.rows[0].points)).toBe(3.6667);
  });
});
