import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { checkImportedTest } from '../../src/modules/catalog/interchange/test-input.js';
import { Student, assign, createPublishedTest } from '../helpers/student.js';
import { portalGet, signedIn } from '../helpers/portal.js';

/** Shared passages through the operator API (validation, read back) and the student page (shown once, named). */

const A = '/api/admin/v1';
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const READING = 'The river rose for three days.\n\nOn the fourth, the bridge closed.';
const choice = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  type: 'single_choice' as const,
  prompt: `Question ${id}`,
  points: 1,
  options: [
    { id: 'a', text: 'Yes' },
    { id: 'b', text: 'No' },
  ],
  correctOptionId: 'a',
  ...over,
});

function withPassages(over: Partial<TestInput> = {}): TestInput {
  return {
    title: 'Reading',
    description: '',
    durationMinutes: 20,
    proctoring: 'none',
    marking: 'auto',
    resultVisibility: 'immediate',
    passages: [
      { id: 'river', title: 'The flood', text: READING },
      { id: 'spare', text: 'Not used by any question.' },
    ],
    questions: [choice('q1', { passageId: 'river' }), choice('q2', { passageId: 'river' }), choice('q3')],
    ...over,
  };
}

const counts = async () => (await h.pool.query('SELECT (SELECT count(*) FROM tests)::int AS t, (SELECT count(*) FROM test_versions)::int AS v')).rows[0];

async function refused(body: unknown) {
  const before = await counts();
  const err = expectError(await h.admin('POST', `${A}/tests`, body), 400, 'invalid_request');
  expect(await counts()).toEqual(before);
  return err.error.details ?? [];
}

describe('passages in the operator API', () => {
  it('a passageId that names no passage is refused at the question’s path, and nothing is stored', async () => {
    const details = await refused(withPassages({ questions: [choice('q1', { passageId: 'river' }), choice('q2', { passageId: 'lake' })] }));
    expect(details).toEqual([{ field: 'questions.1.passageId', message: '"lake" is not one of the test\'s passages (the test\'s passages are "river", "spare")' }]);
  });

  it('a passageId in a test without passages is refused', async () => {
    const details = await refused(withPassages({ passages: undefined, questions: [choice('q1', { passageId: 'river' })] }));
    expect(details).toEqual([{ field: 'questions.0.passageId', message: '"river" is not one of the test\'s passages (the test has no passages)' }]);
  });

  it('duplicate passage ids are refused', async () => {
    const details = await refused(withPassages({ passages: [{ id: 'river', text: 'One' }, { id: 'river', text: 'Two' }] }));
    expect(details).toEqual([{ field: 'passages.1.id', message: 'duplicates passage id "river"' }]);
  });

  it('bounds: at most 100 passages, a text of at most 100,000 characters, a text and an id are required', async () => {
    const many = Array.from({ length: 101 }, (_, i) => ({ id: `p${i}`, text: 'x' }));
    expect((await refused(withPassages({ passages: many, questions: [choice('q1')] })))[0]).toMatchObject({ field: 'passages' });
    // A body that long is over the JSON routes' size limit (413); the bound holds wherever a test is checked whole (an import).
    expect(() => checkImportedTest(withPassages({ passages: [{ id: 'river', text: 'x'.repeat(100_001) }] }))).toThrow(/passages\.0\.text/);
    expect(() => checkImportedTest(withPassages({ passages: [{ id: 'river', text: 'x'.repeat(100_000) }] }))).not.toThrow();
    expect((await refused(withPassages({ passages: [{ id: 'river', text: '' }] })))[0]).toMatchObject({ field: 'passages.0.text' });
    expect((await refused(withPassages({ passages: [{ text: 'No id' } as never] })))[0]).toMatchObject({ field: expect.stringMatching(/^passages\.0/) });
  });

  it('a Markdown passage is checked like a prompt: a broken formula is named at passages.k.text', async () => {
    const details = await refused(withPassages({ contentFormat: 'markdown', passages: [{ id: 'river', text: 'Rate: $\\frac{1}{$' }] }));
    expect(details[0]).toMatchObject({ field: 'passages.0.text', message: expect.stringMatching(/^line 1, column \d+: /) });
  });

  it('stores the passages (an unused one too) and the references, and reads them back; a test without passages reads as before', async () => {
    const res = await h.admin('POST', `${A}/tests`, withPassages());
    expect(res.statusCode).toBe(201);
    const read = (await h.admin('GET', `${A}/tests/${res.json().testId}`)).json();
    expect(read.passages).toEqual([
      { id: 'river', title: 'The flood', text: READING },
      { id: 'spare', text: 'Not used by any question.' },
    ]);
    expect(read.questions.map((q: { passageId?: string }) => q.passageId ?? null)).toEqual(['river', 'river', null]);
    // The read is a valid body: writing it back makes the next version with the same passages.
    const { testId: _t, version: _v, proctoringRules: _p, publishedTo: _pt, createdAt: _c, updatedAt: _u, ...body } = read;
    const again = await h.admin('PUT', `${A}/tests/${res.json().testId}`, body);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ version: 2, passages: read.passages });
    const plain = (await h.admin('POST', `${A}/tests`, withPassages({ passages: undefined, questions: [choice('q1')] }))).json();
    expect('passages' in plain).toBe(false);
    expect(Object.keys(plain.questions[0])).not.toContain('testPassages');
  });
});

describe('passages on the student page', () => {
  let page: string;
  beforeAll(async () => {
    const testId = await createPublishedTest(h, h.a, withPassages({ questions: [choice('q1', { passageId: 'river' }), choice('q2', { passageId: 'river' }), choice('q3')] }));
    const a = await assign(h, h.a, { testId, externalUserId: 'reader-1' });
    const student = new Student(h);
    await student.start(a.startUrl);
    const res = await student.page(a.assignmentId);
    expect(res.statusCode).toBe(200);
    page = res.body;
  });

  it('shows a passage shared by two questions once, as a region named by its title, before its questions', () => {
    expect(page.split('The river rose for three days.').length - 1).toBe(1);
    expect(page).toMatch(/<section class="passage" id="passage-river" aria-labelledby="passage-river-title" tabindex="0">\n<h3 class="passage-title" id="passage-river-title">The flood<\/h3>/);
    const at = page.indexOf('id="passage-river"');
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(page.indexOf('id="question-1"'));
    // Both questions sit in the passage's group; the third, which has none, after it.
    const group = page.slice(at, page.indexOf('id="question-3"'));
    expect(group).toContain('id="question-1"');
    expect(group).toContain('id="question-2"');
    expect(page.slice(page.indexOf('id="question-3"'))).not.toContain('class="passage');
  });

  it('never shows the unused passage, nor a stored key', () => {
    expect(page).not.toContain('Not used by any question.');
    expect(page).not.toContain('testPassages');
  });

  it('a pooled section’s drawn question shows its passage (named "Passage" without a title) once, whatever was drawn', async () => {
    const pool = ['p1', 'p2', 'p3'].map((id) => choice(id, { passageId: 'poem' }));
    const input = withPassages({
      passages: [{ id: 'poem', text: 'Roses are red.' }],
      questions: undefined,
      sections: [{ id: 'pool', title: 'Pool', draw: 2, shuffleQuestions: true, questions: pool }],
    });
    const testId = await createPublishedTest(h, h.a, input);
    const a = await assign(h, h.a, { testId, externalUserId: 'reader-2' });
    const student = new Student(h);
    await student.start(a.startUrl);
    const html = (await student.page(a.assignmentId)).body;
    expect(html.split('Roses are red.').length - 1).toBe(1);
    expect(html).toContain('<h3 class="passage-title" id="passage-poem-title">Passage</h3>');
    expect(html.match(/class="question"/g)).toHaveLength(2);
  });
});

describe('passages on the reviewer pages', () => {
  it('the marking item and the assignment page show the passage title with each question that has one', async () => {
    const input = withPassages({
      marking: 'manual',
      resultVisibility: 'after_review',
      questions: [
        { id: 'e1', type: 'essay', prompt: 'Why did the bridge close?', points: 2, passageId: 'river' },
        { id: 'e2', type: 'essay', prompt: 'Anything else?', points: 1 },
      ],
    });
    const testId = await createPublishedTest(h, h.a, input);
    const a = await assign(h, h.a, { testId, externalUserId: 'reader-3' });
    const student = new Student(h);
    await student.start(a.startUrl);
    await student.page(a.assignmentId);
    await student.save(a.assignmentId, [{ questionId: 'e1', value: 'The water.', version: 1 }]);
    expect((await student.submit(a.assignmentId)).statusCode).toBe(303);
    const reviewer = await signedIn(h, 'reviewer', h.a.institutionId, 'Rita Reviewer');
    for (const url of [`/portal/marking/${a.assignmentId}`, `/portal/assignments/${a.assignmentId}`]) {
      const res = await portalGet(h, reviewer, url);
      expect(res.statusCode).toBe(200);
      expect(res.body.match(/<summary>Passage: The flood<\/summary>/g)).toHaveLength(1);
      expect(res.body.indexOf('Passage: The flood')).toBeLessThan(res.body.indexOf('Why did the bridge close?'));
      expect(res.body).toContain('The river rose for three days.');
    }
  });
});
