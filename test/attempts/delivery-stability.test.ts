import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { Student, assign, createPublishedTest, readAssignment } from '../helpers/student.js';
import { POOL_IDS, sectionedTest } from '../helpers/sectioned.js';

/**
 * The per-candidate draw is made once, when the attempt begins, and every
 * later reader sees it: a reload, a second tab, a new session after a crash,
 * a new test version, the reviewer's marking view. Answers outside the draw
 * and answers of the wrong shape are refused by the real autosave endpoint.
 */

let h: Harness;
let testId: string;
beforeAll(async () => {
  h = await createHarness();
  testId = await createPublishedTest(h, h.a, sectionedTest());
});
afterAll(() => h.close());

/** The question ids in the order the page shows them, and each choice question's option ids in order. */
function pageOrder(body: string): { questions: string[]; options: Record<string, string[]> } {
  const questions: string[] = [];
  const options: Record<string, string[]> = {};
  // Each question's markup runs from its data-question-id to the next one.
  const parts = body.split(/data-question-id="/).slice(1);
  for (const part of parts) {
    const id = part.slice(0, part.indexOf('"'));
    questions.push(id);
    const values = [...part.matchAll(/<input type="radio"[^>]*value="([^"]+)"/g)].map((v) => v[1]!);
    if (values.length > 0) options[id] = values;
  }
  return { questions, options };
}

const deliveryOf = async (assignmentId: string) => (await h.pool.query('SELECT delivery FROM attempts WHERE assignment_id = $1', [assignmentId])).rows[0].delivery;
const storedAnswers = async (assignmentId: string) =>
  (await h.pool.query('SELECT question_id, value FROM answers WHERE assignment_id = $1 ORDER BY question_id', [assignmentId])).rows;

async function begun(externalUserId: string) {
  const a = await assign(h, h.a, { testId, externalUserId });
  const s = new Student(h);
  await s.start(a.startUrl);
  const page = await s.page(a.assignmentId);
  expect(page.statusCode).toBe(200);
  return { a, s, first: pageOrder(page.body) };
}

describe('the draw of one assignment', () => {
  it('gives 2 of the 5 pool questions and every question of the other sections, in the stored order', async () => {
    const { a, first } = await begun('stable-0');
    const d = await deliveryOf(a.assignmentId);
    expect(d.sections.map((s: any) => s.sectionId)).toEqual(['pool', 'skills', 'writing']);
    expect(d.sections[0].questionIds).toHaveLength(2);
    for (const id of d.sections[0].questionIds) expect(POOL_IDS).toContain(id);
    expect(first.questions).toEqual(d.sections.flatMap((s: any) => s.questionIds));
    expect(first.questions.slice(2)).toEqual(['match', 'order', 'blanks', 'essay']);
  });

  it('is the same after a reload, in a second tab, and in a new session opened after a crash', async () => {
    const { a, s, first } = await begun('stable-1');
    const stored = await deliveryOf(a.assignmentId);

    const reload = await s.page(a.assignmentId);
    expect(pageOrder(reload.body)).toEqual(first);

    // A second tab: the same browser session, loaded again alongside.
    const [tab1, tab2] = await Promise.all([s.get(`/a/${a.assignmentId}`), s.get(`/a/${a.assignmentId}`)]);
    expect(pageOrder(tab1.body)).toEqual(first);
    expect(pageOrder(tab2.body)).toEqual(first);

    // The browser crashed: the student opens the start link again, in a brand-new session.
    const read = await readAssignment(h, h.a, a.assignmentId);
    expect(read.status).toBe('started');
    const fresh = new Student(h);
    const opened = await fresh.open(read.startUrl ?? a.startUrl);
    expect(opened.statusCode).toBe(303);
    expect(fresh.cookie).not.toBe(s.cookie);
    const resumed = await fresh.page(a.assignmentId);
    expect(resumed.statusCode).toBe(200);
    expect(pageOrder(resumed.body)).toEqual(first);
    expect(await deliveryOf(a.assignmentId)).toEqual(stored);
  });

  it('is not changed by a new test version published after the attempt began', async () => {
    const { a, s, first } = await begun('stable-2');
    const stored = await deliveryOf(a.assignmentId);
    // Version 2 drops two pool questions (maybe the drawn ones) and reorders the sections.
    const v2 = sectionedTest();
    v2.sections = [v2.sections![2]!, v2.sections![1]!, { ...v2.sections![0]!, questions: v2.sections![0]!.questions.slice(3) }];
    const put = await h.admin('PUT', `/api/admin/v1/tests/${testId}`, v2);
    expect(put.statusCode).toBe(200);
    expect(put.json().version).toBe(2);

    expect(pageOrder((await s.page(a.assignmentId)).body)).toEqual(first);
    expect(await deliveryOf(a.assignmentId)).toEqual(stored);
    // A new assignment takes version 2; this one keeps its version.
    const later = await assign(h, h.a, { testId, externalUserId: 'stable-2b' });
    const pinned = await h.pool.query(
      'SELECT a.id, tv.version FROM assignments a JOIN test_versions tv ON tv.id = a.test_version_id WHERE a.id = ANY($1) ORDER BY tv.version',
      [[a.assignmentId, later.assignmentId]],
    );
    expect(pinned.rows.map((r) => [r.id, r.version])).toEqual([
      [a.assignmentId, 1],
      [later.assignmentId, 2],
    ]);
    // Restore version 1's content so the other tests draw from the five-question pool.
    expect((await h.admin('PUT', `/api/admin/v1/tests/${testId}`, sectionedTest())).statusCode).toBe(200);
  });

  it("is what the reviewer's marking view lists: the same questions in the same order, grouped by section", async () => {
    const { a, s, first } = await begun('stable-3');
    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
    const view = await h.admin('GET', `/api/admin/v1/assignments/${a.assignmentId}`);
    expect(view.statusCode).toBe(200);
    const v = view.json();
    expect(v.items.map((i: any) => i.questionId)).toEqual(first.questions);
    expect(v.sections).toEqual([
      { sectionId: 'pool', title: 'Pool', questionIds: first.questions.slice(0, 2) },
      { sectionId: 'skills', title: 'Skills', questionIds: ['match', 'order', 'blanks'] },
      { sectionId: 'writing', title: 'Writing', questionIds: ['essay'] },
    ]);
    // Only the drawn questions count: 2 × 2 + 3 + 4 + 2 + 5.
    expect(v.items.reduce((n: number, i: any) => n + i.maxPoints, 0)).toBe(18);
  });
});

describe('the autosave refuses, storing nothing', () => {
  async function refusedSave(externalUserId: string, answers: (drawn: string[]) => Array<{ questionId: string; value: unknown }>, field: string, message: RegExp) {
    const { a, s, first } = await begun(externalUserId);
    const body = answers(first.questions).map((x) => ({ ...x, version: 1 }));
    const res = await s.save(a.assignmentId, body);
    const err = expectError(res, 400, 'invalid_request');
    expect(err.error.details).toEqual([{ field, message: expect.stringMatching(message) }]);
    expect(await storedAnswers(a.assignmentId)).toEqual([]);
  }

  it('an answer to a pool question that was not drawn', async () => {
    await refusedSave(
      'refuse-1',
      (drawn) => [
        { questionId: 'match', value: { paris: 'fr' } },
        { questionId: POOL_IDS.find((id) => !drawn.includes(id))!, value: 'a' },
      ],
      'answers.1.questionId',
      /was not drawn for this assignment/,
    );
  });

  it('an ordering that is not a permutation: an item twice, an item missing, an unknown item', async () => {
    await refusedSave('refuse-2', () => [{ questionId: 'order', value: ['me', 'me', 've', 'ea'] }], 'answers.0.value', /permutation/);
    await refusedSave('refuse-3', () => [{ questionId: 'order', value: ['me', 've', 'ea'] }], 'answers.0.value', /permutation/);
    await refusedSave('refuse-4', () => [{ questionId: 'order', value: ['me', 've', 'ea', 'pluto'] }], 'answers.0.value', /permutation/);
  });

  it('a blank id that does not exist, and an option that is not one of a choice blank', async () => {
    await refusedSave('refuse-5', () => [{ questionId: 'blanks', value: { temp: '100', nope: 'x' } }], 'answers.0.value', /"nope" is not a blank/);
    await refusedSave('refuse-6', () => [{ questionId: 'blanks', value: { pressure: 'high' } }], 'answers.0.value', /"high" is not an option of blank "pressure"/);
  });

  it('a matching stem or choice that does not exist', async () => {
    await refusedSave('refuse-7', () => [{ questionId: 'match', value: { london: 'fr' } }], 'answers.0.value', /"london" is not a stem/);
    await refusedSave('refuse-8', () => [{ questionId: 'match', value: { paris: 'uk' } }], 'answers.0.value', /"uk" is not a choice/);
  });

  it('while the well-formed answers of the same shapes are stored', async () => {
    const { a, s } = await begun('accept-1');
    const res = await s.save(a.assignmentId, [
      { questionId: 'match', value: { rome: 'it', paris: 'fr' }, version: 1 },
      { questionId: 'order', value: ['ve', 'me', 'ea', 'ma'], version: 1 },
      { questionId: 'blanks', value: { temp: '100', pressure: 'std' }, version: 1 },
    ]);
    expect(res.statusCode).toBe(200);
    expect(await storedAnswers(a.assignmentId)).toEqual([
      { question_id: 'blanks', value: { temp: '100', pressure: 'std' } },
      // Stored in stem order.
      { question_id: 'match', value: { paris: 'fr', rome: 'it' } },
      { question_id: 'order', value: ['ve', 'me', 'ea', 'ma'] },
    ]);
  });
});
