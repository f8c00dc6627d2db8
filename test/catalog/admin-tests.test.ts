import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { AUTO_TEST, assignmentBody, createHarness, type Harness } from '../helpers/harness.js';
import { detailFields, expectError } from '../helpers/expect-error.js';

const A = '/api/admin/v1';
let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const FULL: TestInput = {
  title: 'Every question type',
  description: 'One of each',
  durationMinutes: 45,
  proctoring: 'record',
  marking: 'hybrid',
  resultVisibility: 'after_review',
  passPercent: 60,
  questions: [
    { id: 'q-single', type: 'single_choice', prompt: 'Pick B', points: 1, options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }], correctOptionId: 'b' },
    { type: 'multiple_choice', prompt: 'Pick A and C', points: 2, options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }, { id: 'c', text: 'C' }], correctOptionIds: ['a', 'c'] },
    { type: 'short_text', prompt: 'Capital of France?', points: 1, acceptedAnswers: ['Paris'] },
    { type: 'numeric', prompt: 'Pi to two places', points: 1, answer: 3.14, tolerance: 0.005 },
    { type: 'essay', prompt: 'Discuss', points: 5, rubric: 'Clarity', maxWords: 300 },
  ],
};

const withQuestion = (q: Record<string, unknown>, extra: Partial<TestInput> = {}) => ({ ...AUTO_TEST, ...extra, questions: [q] });
const single = (over: Record<string, unknown> = {}) => ({
  type: 'single_choice',
  prompt: 'p',
  points: 1,
  options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }],
  correctOptionId: 'a',
  ...over,
});

describe('tests: create, read, new version', () => {
  it('POST creates version 1 with generated question ids and defaults, and GET returns the same', async () => {
    const res = await h.admin('POST', `${A}/tests`, FULL);
    expect(res.statusCode).toBe(201);
    const t = res.json();
    expect(t.testId).toMatch(/^tst_[0-9A-Za-z]{22}$/);
    expect(t).toMatchObject({
      version: 1,
      title: FULL.title,
      durationMinutes: 45,
      proctoring: 'record',
      marking: 'hybrid',
      resultVisibility: 'after_review',
      passPercent: 60,
      publishedTo: [],
    });
    expect(t.questions).toHaveLength(5);
    expect(t.questions[0].id).toBe('q-single');
    for (const q of t.questions.slice(1)) expect(q.id).toMatch(/^q_[0-9A-Za-z]{22}$/);
    expect(t.questions[1].partialCredit).toBe(false);
    expect(t.questions[2].caseSensitive).toBe(false);
    expect(t.questions[3].tolerance).toBe(0.005);
    expect((await h.admin('GET', `${A}/tests/${t.testId}`)).json()).toEqual(t);
  });

  it('PUT writes a new version that reads back, and existing assignments keep the version they pinned', async () => {
    const t = (await h.admin('POST', `${A}/tests`, AUTO_TEST)).json();
    await h.admin('PUT', `${A}/tests/${t.testId}/publications/${h.a.institutionId}`);
    const before = (await h.partner(h.a, 'POST', '/api/partner/v1/assignments', assignmentBody(h.a, { testId: t.testId }))).json();
    const res = await h.admin('PUT', `${A}/tests/${t.testId}`, { ...AUTO_TEST, title: 'Renamed', passPercent: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ testId: t.testId, version: 2, title: 'Renamed', passPercent: null, publishedTo: [h.a.institutionId] });
    expect((await h.admin('GET', `${A}/tests/${t.testId}`)).json().version).toBe(2);
    const pinned = await h.pool.query('SELECT tv.version FROM assignments a JOIN test_versions tv ON tv.id = a.test_version_id WHERE a.id = $1', [
      before.assignmentId,
    ]);
    expect(pinned.rows[0].version).toBe(1);
    expect((await h.admin('PUT', `${A}/tests/${t.testId}`, AUTO_TEST)).json().version).toBe(3);
  });

  it('GET and PUT of an unknown test are 404', async () => {
    expectError(await h.admin('GET', `${A}/tests/tst_0000000000000000000000`), 404, 'not_found');
    expectError(await h.admin('PUT', `${A}/tests/tst_0000000000000000000000`, AUTO_TEST), 404, 'not_found');
  });

  it('an invalid PUT writes no version', async () => {
    const t = (await h.admin('POST', `${A}/tests`, AUTO_TEST)).json();
    expectError(await h.admin('PUT', `${A}/tests/${t.testId}`, { ...AUTO_TEST, durationMinutes: 0 }), 400, 'invalid_request');
    expect((await h.admin('GET', `${A}/tests/${t.testId}`)).json().version).toBe(1);
  });
});

describe('tests: publications', () => {
  it('publish is 204 and idempotent; the partner then lists it; unpublish is 204 and idempotent', async () => {
    const t = (await h.admin('POST', `${A}/tests`, AUTO_TEST)).json();
    const url = `${A}/tests/${t.testId}/publications/${h.b.institutionId}`;
    const listed = async () => (await h.partner(h.b, 'GET', '/api/partner/v1/tests?limit=100')).json().data.map((x: { testId: string }) => x.testId);
    expect(await listed()).not.toContain(t.testId);
    const pub = await h.admin('PUT', url);
    expect(pub.statusCode).toBe(204);
    expect(pub.body).toBe('');
    expect((await h.admin('PUT', url)).statusCode).toBe(204);
    expect(await listed()).toContain(t.testId);
    expect((await h.admin('GET', `${A}/tests/${t.testId}`)).json().publishedTo).toEqual([h.b.institutionId]);
    expect((await h.admin('DELETE', url)).statusCode).toBe(204);
    expect((await h.admin('DELETE', url)).statusCode).toBe(204);
    expect(await listed()).not.toContain(t.testId);
  });

  it('publishing or unpublishing an unknown test or institution is 404', async () => {
    const t = (await h.admin('POST', `${A}/tests`, AUTO_TEST)).json();
    for (const method of ['PUT', 'DELETE']) {
      expectError(await h.admin(method, `${A}/tests/tst_0000000000000000000000/publications/${h.a.institutionId}`), 404, 'not_found');
      expectError(await h.admin(method, `${A}/tests/${t.testId}/publications/ins_0000000000000000000000`), 404, 'not_found');
    }
  });
});

describe('tests: authoring rules (400 with details)', () => {
  it.each([
    ['an auto test with an essay', withQuestion({ type: 'essay', prompt: 'Discuss', points: 1 }), ['questions.0.type']],
    ['a manual test shown immediately', { ...FULL, marking: 'manual', resultVisibility: 'immediate' }, ['resultVisibility']],
    ['a hybrid test shown immediately', { ...FULL, resultVisibility: 'immediate' }, ['resultVisibility']],
    ['duplicate option ids', withQuestion(single({ options: [{ id: 'a', text: 'A' }, { id: 'a', text: 'B' }] })), ['questions.0.options.1.id']],
    ['a correctOptionId that is not an option', withQuestion(single({ correctOptionId: 'z' })), ['questions.0.correctOptionId']],
    [
      'correctOptionIds not among the options',
      withQuestion({ type: 'multiple_choice', prompt: 'p', points: 1, options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }], correctOptionIds: ['a', 'x'] }),
      ['questions.0.correctOptionIds.1'],
    ],
    [
      'a repeated correct option',
      withQuestion({ type: 'multiple_choice', prompt: 'p', points: 1, options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }], correctOptionIds: ['a', 'a'] }),
      ['questions.0.correctOptionIds.1'],
    ],
    ['duplicate question ids', { ...AUTO_TEST, questions: [single({ id: 'same' }), single({ id: 'same' })] }, ['questions.1.id']],
    ['durationMinutes 0', { ...AUTO_TEST, durationMinutes: 0 }, ['durationMinutes']],
    ['durationMinutes 1441', { ...AUTO_TEST, durationMinutes: 1441 }, ['durationMinutes']],
    ['a fractional durationMinutes', { ...AUTO_TEST, durationMinutes: 1.5 }, ['durationMinutes']],
    ['passPercent -1', { ...AUTO_TEST, passPercent: -1 }, ['passPercent']],
    ['passPercent 100.5', { ...AUTO_TEST, passPercent: 100.5 }, ['passPercent']],
    ['points 0', withQuestion(single({ points: 0 })), ['questions.0.points']],
    ['negative points', withQuestion(single({ points: -2 })), ['questions.0.points']],
    ['no questions', { ...AUTO_TEST, questions: [] }, ['questions']],
    ['a question of unknown type', withQuestion({ type: 'drawing', prompt: 'p', points: 1 }), ['questions.0.type']],
    ['a question without type', withQuestion({ prompt: 'p', points: 1 }), ['questions.0.type']],
    ['a question whose type is not a string', withQuestion({ type: 7, prompt: 'p', points: 1 }), ['questions.0.type']],
    ['a choice question with one option', withQuestion(single({ options: [{ id: 'a', text: 'A' }] })), ['questions.0.options']],
    ['an unknown field in a question', withQuestion(single({ hint: 'x' })), ['questions.0.hint']],
    ['an unknown top-level field', { ...AUTO_TEST, shuffle: true }, ['shuffle']],
    ['an unknown proctoring mode', { ...AUTO_TEST, proctoring: 'webcam' }, ['proctoring']],
    ['a missing title', { ...AUTO_TEST, title: undefined }, ['title']],
  ])('refuses %s', async (_label, body, fields) => {
    const before = (await h.pool.query('SELECT count(*)::int AS n FROM tests')).rows[0].n;
    const res = await h.admin('POST', `${A}/tests`, body);
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res)).toEqual(expect.arrayContaining(fields));
    expect((await h.pool.query('SELECT count(*)::int AS n FROM tests')).rows[0].n).toBe(before);
  });

  it('reports every authoring violation of one test at once', async () => {
    const res = await h.admin('POST', `${A}/tests`, {
      ...AUTO_TEST,
      questions: [single({ correctOptionId: 'z' }), { type: 'essay', prompt: 'e', points: 1 }],
    });
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res)).toEqual(['questions.0.correctOptionId', 'questions.1.type']);
  });

  it.each([
    ['durationMinutes 1', { ...AUTO_TEST, durationMinutes: 1 }],
    ['durationMinutes 1440', { ...AUTO_TEST, durationMinutes: 1440 }],
    ['passPercent 0', { ...AUTO_TEST, passPercent: 0 }],
    ['passPercent 100', { ...AUTO_TEST, passPercent: 100 }],
    ['no passPercent', { ...AUTO_TEST, passPercent: undefined }],
    ['fractional points', withQuestion(single({ points: 0.5 }))],
    ['a manual essay-only test shown after review', { ...AUTO_TEST, marking: 'manual', resultVisibility: 'after_review', questions: [{ type: 'essay', prompt: 'e', points: 3 }] }],
    ['an auto test shown after review', { ...AUTO_TEST, resultVisibility: 'after_review' }],
  ])('accepts %s', async (_label, body) => {
    const res = await h.admin('POST', `${A}/tests`, body);
    expect(res.statusCode, res.body).toBe(201);
  });
});
