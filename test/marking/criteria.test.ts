import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { marksVersion } from '../../src/modules/marking/marks-version.js';
import { expectError } from '../helpers/expect-error.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, portalPost, signedIn, type PortalUser } from '../helpers/portal.js';
import { Student, assign, createPublishedTest, readAssignment } from '../helpers/student.js';

/** Marking an essay per criterion: each criterion's points and comment, the question's total their sum. */
export const CRITERIA_TEST: TestInput = {
  title: 'Criteria Essay',
  description: 'An essay marked per criterion.',
  durationMinutes: 30,
  proctoring: 'none',
  marking: 'manual',
  resultVisibility: 'after_review',
  passPercent: 50,
  questions: [
    {
      id: 'es',
      type: 'essay',
      prompt: 'Argue for or against homework.',
      points: 10,
      criteria: [
        { criterion: 'Structure', points: 4, description: 'A clear introduction, body and conclusion' },
        { criterion: 'Evidence', points: 6, description: 'Claims backed by examples' },
      ],
    },
    { id: 'plain', type: 'essay', prompt: 'Any further thoughts?', points: 5 },
  ],
};

let h: Harness;
let testId: string;
let jo: PortalUser;
beforeAll(async () => {
  h = await createHarness();
  testId = await createPublishedTest(h, h.a, CRITERIA_TEST);
  jo = await signedIn(h, 'reviewer', h.a.institutionId, 'Jo Reviewer');
});
afterAll(() => h?.close());

async function submitted(externalUserId: string): Promise<string> {
  const a = await assign(h, h.a, { testId, externalUserId });
  const s = new Student(h);
  await s.start(a.startUrl);
  await s.page(a.assignmentId);
  const saved = await s.save(a.assignmentId, [
    { questionId: 'es', value: 'Homework helps, for example with spaced practice.', version: 1 },
    { questionId: 'plain', value: 'None.', version: 1 },
  ]);
  expect(saved.statusCode).toBe(200);
  expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
  return a.assignmentId;
}

const marks = (assignmentId: string, body: unknown) => h.admin('POST', `/api/admin/v1/assignments/${assignmentId}/marks`, body);
const view = async (assignmentId: string) => (await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}`)).json();
const storedMarks = async (assignmentId: string) =>
  (await h.pool.query('SELECT question_id FROM marks WHERE assignment_id = $1', [assignmentId])).rows.map((r) => r.question_id);

describe('criterion marks through the operator API', () => {
  it('records each criterion’s points and comment; the question’s points are their sum, shown in the marking view and the score', async () => {
    const id = await submitted('crit-1');
    const before = await view(id);
    expect(before.items[0].criteria.map((c: any) => [c.criterion, c.points])).toEqual([['Structure', 4], ['Evidence', 6]]);

    const res = await marks(id, {
      marks: [
        { questionId: 'es', criteria: [{ criterion: 'Structure', points: 3, comment: 'Clear paragraphs.' }, { criterion: 'Evidence', points: 4.5 }] },
        { questionId: 'plain', points: 2 },
      ],
      complete: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    const es = res.json().items.find((i: any) => i.questionId === 'es');
    expect(es.mark.points).toBe(7.5);
    expect(es.mark.criteria).toEqual([
      { criterion: 'Structure', points: 3, maxPoints: 4, comment: 'Clear paragraphs.' },
      { criterion: 'Evidence', points: 4.5, maxPoints: 6, comment: null },
    ]);
    // The question without criteria keeps one points box: no criterion marks.
    expect(res.json().items.find((i: any) => i.questionId === 'plain').mark).toMatchObject({ points: 2, criteria: null });
    expect((await view(id)).items[0].mark.criteria[0]).toEqual({ criterion: 'Structure', points: 3, maxPoints: 4, comment: 'Clear paragraphs.' });
    expect((await readAssignment(h, h.a, id)).result.score).toMatchObject({ points: 9.5, maxPoints: 15, gradingStatus: 'final' });
  });

  it('accepts a total sent beside the criteria when it equals their sum', async () => {
    const id = await submitted('crit-2');
    const res = await marks(id, { marks: [{ questionId: 'es', points: 10, criteria: [{ criterion: 'Structure', points: 4 }, { criterion: 'Evidence', points: 6 }] }], complete: false });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().items[0].mark.points).toBe(10);
  });

  it('still accepts points alone for a question with criteria (as before criterion marks): a total without a breakdown', async () => {
    const id = await submitted('crit-total-only');
    const res = await marks(id, { marks: [{ questionId: 'es', points: 6 }], complete: false });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().items[0].mark).toMatchObject({ points: 6, criteria: null });
    const over = expectError(await marks(id, { marks: [{ questionId: 'es', points: 11 }], complete: false }), 400, 'invalid_request');
    expect(over.error.details).toContainEqual({ field: 'marks.0.points', message: expect.stringMatching(/between 0 and 10/) });
  });

  it.each([
    [
      'an unknown criterion',
      [{ criterion: 'Structure', points: 1 }, { criterion: 'Evidence', points: 1 }, { criterion: 'Style', points: 1 }],
      undefined,
      'marks.0.criteria.2.criterion',
      /not a criterion of question es/,
    ],
    ['points over the criterion’s maximum', [{ criterion: 'Structure', points: 4.5 }, { criterion: 'Evidence', points: 1 }], undefined, 'marks.0.criteria.0.points', /between 0 and 4/],
    ['a missing criterion', [{ criterion: 'Structure', points: 2 }], undefined, 'marks.0.criteria', /Evidence/],
    ['a criterion twice', [{ criterion: 'Structure', points: 2 }, { criterion: 'Structure', points: 1 }, { criterion: 'Evidence', points: 1 }], undefined, 'marks.0.criteria.1.criterion', /twice/],
    ['a total that disagrees with the criteria', [{ criterion: 'Structure', points: 2 }, { criterion: 'Evidence', points: 3 }], 6, 'marks.0.points', /sum of the criteria points \(5\)/],
    ['neither criteria nor points for a question marked per criterion', undefined, undefined, 'marks.0.criteria', /marked per criterion/],
  ])('refuses %s in the envelope, naming the field, and stores nothing', async (_name, criteria, points, field, message) => {
    const id = await submitted(`crit-bad-${field}-${String(points)}`);
    const versionBefore = marksVersion([]);
    const res = await marks(id, { marks: [{ questionId: 'es', ...(points !== undefined ? { points } : {}), ...(criteria ? { criteria } : {}) }, { questionId: 'plain', points: 1 }], complete: true });
    const body = expectError(res, 400, 'invalid_request');
    const detail = body.error.details!.find((d) => d.field === field);
    expect(detail, JSON.stringify(body.error.details)).toBeDefined();
    expect(detail!.message).toMatch(message);
    expect(await storedMarks(id)).toEqual([]);
    expect((await readAssignment(h, h.a, id)).status).toBe('marking');
    expect(versionBefore).toBe(marksVersion([]));
  });

  it('refuses criteria on a question without criteria, and a mark with neither points nor criteria', async () => {
    const id = await submitted('crit-bad-plain');
    const withCriteria = expectError(
      await marks(id, { marks: [{ questionId: 'plain', criteria: [{ criterion: 'Structure', points: 1 }] }], complete: false }),
      400,
      'invalid_request',
    );
    expect(withCriteria.error.details).toContainEqual({ field: 'marks.0.criteria', message: expect.stringMatching(/has no criteria/) });
    const neither = expectError(await marks(id, { marks: [{ questionId: 'plain' }], complete: false }), 400, 'invalid_request');
    expect(neither.error.details).toContainEqual({ field: 'marks.0.points', message: expect.stringMatching(/required/) });
    expect(await storedMarks(id)).toEqual([]);
  });

  it('refuses a criterion with negative points or an unknown field by the schema', async () => {
    const id = await submitted('crit-bad-schema');
    const negative = expectError(await marks(id, { marks: [{ questionId: 'es', criteria: [{ criterion: 'Structure', points: -1 }, { criterion: 'Evidence', points: 1 }] }], complete: false }), 400, 'invalid_request');
    expect(negative.error.details!.map((d) => d.field).join(' ')).toMatch(/criteria\.0\.points/);
    const extra = expectError(await marks(id, { marks: [{ questionId: 'es', criteria: [{ criterion: 'Structure', points: 1, weight: 2 }, { criterion: 'Evidence', points: 1 }] }], complete: false }), 400, 'invalid_request');
    expect(extra.error.details!.map((d) => d.field).join(' ')).toMatch(/criteria\.0/);
    expect(await storedMarks(id)).toEqual([]);
  });
});

describe('the marks version covers criterion marks', () => {
  it('two marks that differ only in a criterion’s points have different versions', () => {
    const base = { questionId: 'es', points: 5, source: 'reviewer' as const, comment: null, markedBy: 'jo@example.org', markedAt: new Date('2026-01-01T00:00:00Z') };
    const a = marksVersion([{ ...base, criteria: [{ criterion: 'Structure', points: 2, comment: null }, { criterion: 'Evidence', points: 3, comment: null }] }] as any);
    const b = marksVersion([{ ...base, criteria: [{ criterion: 'Structure', points: 3, comment: null }, { criterion: 'Evidence', points: 2, comment: null }] }] as any);
    const c = marksVersion([{ ...base, criteria: [{ criterion: 'Structure', points: 2, comment: 'Good' }, { criterion: 'Evidence', points: 3, comment: null }] }] as any);
    expect(a).not.toBe(b);
    expect(a).not.toBe(c);
    // A mark without criteria keeps the version it had before criterion marks existed.
    expect(marksVersion([{ ...base, criteria: null }] as any)).toBe(marksVersion([base] as any));
  });

  it('a reviewer’s save based on marks that changed (criterion marks through the API) is refused, nothing replaced', async () => {
    const id = await submitted('crit-conflict');
    const page = await portalGet(h, jo, `/portal/marking/${id}`);
    const version = /name="version" value="([^"]+)"/.exec(page.body)![1]!;
    expect((await marks(id, { marks: [{ questionId: 'es', criteria: [{ criterion: 'Structure', points: 1 }, { criterion: 'Evidence', points: 1 }] }], complete: false })).statusCode).toBe(200);
    const stale = await portalPost(h, jo, `/portal/marking/${id}`, { version, action: 'finish', 'criterion-es-0': '4', 'criterion-es-1': '6', 'points-plain': '5' });
    expect(stale.statusCode).toBe(409);
    expect((await view(id)).items[0].mark.criteria.map((c: any) => c.points)).toEqual([1, 1]);
  });
});

describe('criterion marks in the portal (form posts)', () => {
  it('the item page has a points field per criterion, labelled with the criterion and the prompt, bounded by its maximum; no total field', async () => {
    const id = await submitted('crit-form-1');
    const page = await portalGet(h, jo, `/portal/marking/${id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/<label for="f-criterion-es-0">Structure<span class="sr-only"> points for “Argue for or against homework\.”<\/span><\/label>/);
    expect(page.body).toMatch(/id="f-criterion-es-1" name="criterion-es-1" type="number" value=""[^>]*max="6"/);
    expect(page.body).not.toContain('name="points-es"');
    expect(page.body).toContain('name="points-plain"');
    expect(page.body).toContain('name="criterion-comment-es-0"');
  });

  it('keeps a draft per criterion: points and comments come back filled in, the total shown; nothing is marked yet', async () => {
    const id = await submitted('crit-form-draft');
    const page = await portalGet(h, jo, `/portal/marking/${id}`);
    const version = /name="version" value="([^"]+)"/.exec(page.body)![1]!;
    const saved = await portalPost(h, jo, `/portal/marking/${id}`, { version, action: 'save', 'criterion-es-0': '2.5', 'criterion-comment-es-0': 'Needs a conclusion.', 'criterion-es-1': '4' });
    expect(saved.statusCode, saved.body).toBe(303);
    const back = await portalGet(h, jo, saved.headers.location as string);
    expect(back.body).toMatch(/id="f-criterion-es-0" name="criterion-es-0" type="number" value="2.5"/);
    expect(back.body).toMatch(/id="f-criterion-es-1" name="criterion-es-1" type="number" value="4"/);
    expect(back.body).toContain('Needs a conclusion.</textarea>');
    expect(back.body).toMatch(/<output id="total-es"[^>]*>6\.5<\/output>/);
    expect(await storedMarks(id)).toEqual([]);
  });

  it('refuses a criterion over its maximum beside its field, then finishes with the sum as the question’s points', async () => {
    const id = await submitted('crit-form-2');
    const page = await portalGet(h, jo, `/portal/marking/${id}`);
    const version = /name="version" value="([^"]+)"/.exec(page.body)![1]!;
    const bad = await portalPost(h, jo, `/portal/marking/${id}`, { version, action: 'finish', 'criterion-es-0': '5', 'criterion-es-1': '6', 'points-plain': '5' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Structure');
    expect(bad.body).toMatch(/must be between 0 and 4/);
    expect(bad.body).toMatch(/id="f-criterion-es-0-error"/);
    const missing = await portalPost(h, jo, `/portal/marking/${id}`, { version, action: 'finish', 'criterion-es-0': '3', 'points-plain': '5' });
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toMatch(/id="f-criterion-es-1-error"/);
    expect(await storedMarks(id)).toEqual([]);

    const done = await portalPost(h, jo, `/portal/marking/${id}`, {
      version,
      action: 'finish',
      'criterion-es-0': '3',
      'criterion-comment-es-0': 'Clear paragraphs.',
      'criterion-es-1': '5.5',
      'points-plain': '4',
    });
    expect(done.statusCode, done.body).toBe(303);
    const es = (await view(id)).items[0].mark;
    expect(es.points).toBe(8.5);
    expect(es.criteria).toEqual([
      { criterion: 'Structure', points: 3, maxPoints: 4, comment: 'Clear paragraphs.' },
      { criterion: 'Evidence', points: 5.5, maxPoints: 6, comment: null },
    ]);
    const assignmentPage = await portalGet(h, jo, `/portal/assignments/${id}`);
    expect(assignmentPage.body).toMatch(/Structure<\/th><td[^>]*>3 of 4<\/td><td[^>]*>Clear paragraphs\.<\/td>/);
  });
});
