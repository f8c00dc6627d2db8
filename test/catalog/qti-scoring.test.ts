import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Question } from '../../src/modules/catalog/schemas.js';
import { markQuestion } from '../../src/modules/marking/auto-mark.js';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { itemsPackage, packageOf } from '../helpers/qti.js';
import { Student, assign } from '../helpers/student.js';
import { testModeTenant } from '../helpers/test-mode.js';

/**
 * Items whose response processing no native rule expresses keep it
 * (`scoring`) and are marked by running it: imported through the real
 * import route, answered and submitted through the student's routes,
 * exported and imported again, simulated in test mode, and refused with a
 * 400 when the stored form is wrong.
 */
const A = '/api/admin/v1';
const FILES = ['text-entry-custom.xml', 'choice-custom-partial.xml', 'text-entry-float-custom.xml', 'choice-single-custom.xml'];
let h: Harness;
let testId: string;
let questions: Question[];

function importPackage(zip: Uint8Array, query = '') {
  return h.app.inject({
    method: 'POST',
    url: `${A}/tests/import${query}`,
    headers: { 'content-type': 'application/zip', authorization: `Bearer ${ADMIN_TOKEN}` },
    payload: Buffer.from(zip),
  });
}
const readTest = async (id: string) => (await h.admin('GET', `${A}/tests/${id}`)).json() as { questions: Question[] };
const publish = async (id: string) => expect((await h.admin('PUT', `${A}/tests/${id}/publications/${h.a.institutionId}`)).statusCode).toBe(204);
const countTests = async () => Number((await h.pool.query('SELECT count(*) FROM tests')).rows[0].count);
const scoringOf = (q: Question) => ('scoring' in q ? q.scoring : undefined);

beforeAll(async () => {
  h = await createHarness();
  const res = await importPackage(itemsPackage(FILES));
  expect(res.statusCode, res.body).toBe(201);
  testId = res.json().testId;
  questions = (await readTest(testId)).questions;
  await publish(testId);
});
afterAll(() => h?.close());

describe('import keeps custom response processing', () => {
  it('a text entry becomes short_text or numeric, a choice multiple_choice, each with scoring as written and its points', async () => {
    expect(questions.map((q) => [q.id, q.type, q.points])).toEqual([
      ['capital-custom', 'short_text', 2], // MAXSCORE
      ['noble-custom', 'multiple_choice', 3], // MAXSCORE
      ['gravity-custom', 'numeric', 2], // no MAXSCORE: the score of the correct response
      ['giant-custom', 'single_choice', 2], // no MAXSCORE: the best of the correct response and each choice
    ]);
    expect(questions.map((q) => scoringOf(q)?.responses)).toEqual([[{ identifier: 'RESPONSE' }], [{ identifier: 'RESPONSE' }], [{ identifier: 'G' }], [{ identifier: 'RESPONSE' }]]);
    const capital = scoringOf(questions[0]!)!;
    expect(capital.format).toBe('qti');
    expect(capital.responseProcessing).toMatch(/^<qti-response-processing>/);
    expect(capital.responseProcessing).toContain('<qti-pattern-match pattern="[Pp][Aa][Rr][Ii][Ss]|Paree"><qti-variable identifier="RESPONSE"/></qti-pattern-match>');
    expect(capital.declarations).toContain('<qti-outcome-declaration identifier="FEEDBACK" cardinality="single" base-type="identifier"/>');
    // The key the question shows is the declared correct response.
    expect(questions[0]).toMatchObject({ acceptedAnswers: ['Paris'] });
    expect(questions[1]).toMatchObject({ correctOptionIds: ['neon', 'argon'] });
    expect(questions[2]).toMatchObject({ answer: 9.81 });
    expect(questions[3]).toMatchObject({ correctOptionId: 'jupiter' });
  });

  it('the dry run shows the same scoring, and a QTI 2.2 package gives the same, written in 3.0 names', async () => {
    const dry = (await importPackage(itemsPackage(FILES), '?dryRun=true')).json();
    expect(dry.test.questions.map(scoringOf)).toEqual(questions.map(scoringOf));
    const v22 = (await importPackage(itemsPackage(FILES, '2.2'), '?dryRun=true')).json();
    expect(v22.report.skipped).toEqual([]);
    expect(v22.test.questions.map(scoringOf)).toEqual(questions.map(scoringOf));
  });

  it('an item whose processing the interpreter refuses is still skipped, with its reason', async () => {
    const res = (await importPackage(itemsPackage(['choice-single.xml', 'skip-custom-rp.xml']), '?dryRun=true')).json();
    expect(res.report.skipped).toEqual([
      { file: 'items/skip-custom-rp.xml', identifier: 'skip-custom', interaction: 'choice-interaction', reason: expect.stringMatching(/^the response processing cannot be run: /) },
    ]);
  });
});

/** capital (2), noble (3), gravity (2), giant (2): the answers saved and the points the processing gives each. */
const CASES: Array<{ answers: Record<string, unknown>; points: [number, number, number, number] }> = [
  { answers: { 'capital-custom': 'Paris', 'noble-custom': ['neon', 'argon'], 'gravity-custom': '9.81', 'giant-custom': 'jupiter' }, points: [2, 3, 2, 2] },
  { answers: { 'capital-custom': 'paris', 'noble-custom': ['neon'], 'gravity-custom': '9,9', 'giant-custom': 'saturn' }, points: [1, 1, 1, 1] },
  { answers: { 'capital-custom': ' PARIS ', 'noble-custom': ['neon', 'oxygen'], 'gravity-custom': '10.2', 'giant-custom': 'mars' }, points: [1, 0, 0, 0] },
  { answers: { 'capital-custom': 'Paree', 'noble-custom': ['argon'], 'gravity-custom': 'nine' }, points: [1, 0, 0, 0] },
  { answers: { 'capital-custom': 'Lyon', 'noble-custom': ['neon', 'argon', 'sodium'], 'gravity-custom': '9.805', 'giant-custom': 'saturn' }, points: [0, 0, 2, 1] },
  { answers: {}, points: [0, 0, 0, 0] },
];
const MAX = 9;

async function submitted(test: string, answers: Record<string, unknown>, who: string): Promise<string> {
  const a = await assign(h, h.a, { testId: test, externalUserId: who });
  const s = new Student(h);
  await s.start(a.startUrl);
  await s.page(a.assignmentId);
  const entries = Object.entries(answers).map(([questionId, value]) => ({ questionId, value, version: 1 }));
  if (entries.length > 0) expect((await s.save(a.assignmentId, entries)).statusCode).toBe(200);
  expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
  return a.assignmentId;
}

describe('marking runs the processing', () => {
  it('each answer submitted gets the points the item processing gives, and the marking view says how it was marked', async () => {
    for (const [i, c] of CASES.entries()) {
      const id = await submitted(testId, c.answers, `qti-case-${i}`);
      const view = (await h.admin('GET', `${A}/assignments/${id}`)).json();
      expect(view.items.map((it: { mark: { points: number } | null }) => it.mark?.points), JSON.stringify(c.answers)).toEqual(c.points);
      expect(view.items.every((it: { needsMarking: boolean }) => !it.needsMarking)).toBe(true);
      expect(view.items[0].scoring).toEqual({ format: 'qti', note: 'Marked by its imported QTI response processing, not by the answer key shown.' });
      const read = (await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${id}`)).json();
      expect(read.result.score.points).toBe(c.points.reduce((s, p) => s + p, 0));
      expect(read.result.score.maxPoints).toBe(MAX);
    }
    // Statistics count an option as correct when choosing it earns points, as marking gives them: Saturn is no distractor.
    await h.runJobs();
    const stats = (await h.admin('GET', `${A}/tests/${testId}/statistics?institutionId=${h.a.institutionId}`)).json();
    const giant = stats.items.find((i: { questionId: string }) => i.questionId === 'giant-custom');
    expect(giant.options.map((o: { optionId: string; correct: boolean; chosen: number }) => [o.optionId, o.correct, o.chosen])).toEqual([
      ['mars', false, 1],
      ['saturn', true, 2],
      ['jupiter', true, 1],
      ['venus', false, 0],
    ]);
    expect(giant.facility).toBeCloseTo((2 + 1 + 0 + 0 + 1 + 0) / 6 / 2, 6);
  });

  it('the sandbox simulates a score of 100 % with answers the processing gives full marks', async () => {
    const sandbox = await testModeTenant(h, h.a);
    const created = await h.partner(sandbox, 'POST', '/api/partner/v1/assignments', { externalUserId: 'sim-qti', testId, user: { email: 'dev@example.org' }, callbackUrl: sandbox.callbackUrl });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().assignmentId;
    const simulate = (body: unknown) => h.partner(sandbox, 'POST', `/api/partner/v1/assignments/${id}/simulate`, body);
    expect((await simulate({ action: 'start' })).statusCode).toBe(200);
    const done = await simulate({ action: 'submit', score: 100 });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ status: 'completed', result: { score: { points: MAX, maxPoints: MAX, percent: 100 } } });
  });
});

/**
 * A choice item whose processing passes the interpreter's step limit when
 * every option is picked: three `contains` each search 7,950 other values
 * for each of the 50 picks (about 1.2 million steps, the limit being 1
 * million). One pick runs in a few thousand steps.
 */
function stepHungryItem(): string {
  const options = Array.from({ length: 50 }, (_, i) => `o${i + 1}`);
  const hay = [...Array.from({ length: 7_950 }, () => 'z'), ...options].map((v) => `<qti-value>${v}</qti-value>`).join('');
  const rule = (n: number) =>
    `<qti-response-condition><qti-response-if><qti-contains><qti-variable identifier="HAY"/><qti-variable identifier="RESPONSE"/></qti-contains><qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">${n}</qti-base-value></qti-set-outcome-value></qti-response-if></qti-response-condition>`;
  return `<qti-assessment-item xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="hungry" title="Slow to score">
  <qti-response-declaration identifier="RESPONSE" cardinality="multiple" base-type="identifier"><qti-correct-response><qti-value>o1</qti-value></qti-correct-response></qti-response-declaration>
  <qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"/>
  <qti-outcome-declaration identifier="MAXSCORE" cardinality="single" base-type="float"><qti-default-value><qti-value>3</qti-value></qti-default-value></qti-outcome-declaration>
  <qti-outcome-declaration identifier="HAY" cardinality="multiple" base-type="identifier"><qti-default-value>${hay}</qti-default-value></qti-outcome-declaration>
  <qti-item-body><qti-choice-interaction response-identifier="RESPONSE" max-choices="0"><qti-prompt>Pick</qti-prompt>${options.map((o) => `<qti-simple-choice identifier="${o}">${o}</qti-simple-choice>`).join('')}</qti-choice-interaction></qti-item-body>
  <qti-response-processing>${rule(1)}${rule(2)}${rule(3)}</qti-response-processing>
</qti-assessment-item>`;
}

describe('a run that passes the step limit', () => {
  it('leaves the item for a reviewer, even on an immediate test: the attempt waits in marking, then completes with the reviewer\'s points', async () => {
    const res = await importPackage(packageOf([{ path: 'items/hungry.xml', xml: stepHungryItem() }]));
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().testId as string;
    expect((await h.admin('GET', `${A}/tests/${id}`)).json()).toMatchObject({ marking: 'auto', resultVisibility: 'immediate', questions: [{ type: 'multiple_choice', points: 3 }] });
    await publish(id);

    const quick = await submitted(id, { hungry: ['o1'] }, 'hungry-1');
    expect((await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${quick}`)).json()).toMatchObject({ status: 'completed', result: { score: { points: 3, gradingStatus: 'final' } } });

    const slow = await submitted(id, { hungry: Array.from({ length: 50 }, (_, i) => `o${i + 1}`) }, 'hungry-2');
    const view = (await h.admin('GET', `${A}/assignments/${slow}`)).json();
    expect(view).toMatchObject({ status: 'marking', awaitingMarking: ['hungry'] });
    expect(view.items[0]).toMatchObject({ needsMarking: true, mark: null, scoring: { format: 'qti', note: expect.stringMatching(/could not be run on this answer .*a reviewer marks it/) } });
    // Nothing of the attempt was marked automatically, so there is no score until the reviewer's.
    expect((await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${slow}`)).json()).toMatchObject({ status: 'marking', result: { score: null } });
    const marked = await h.admin('POST', `${A}/assignments/${slow}/marks`, { marks: [{ questionId: 'hungry', points: 2 }], complete: true, markedBy: 'rita@alpha.example' });
    expect(marked.statusCode, marked.body).toBe(200);
    expect((await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${slow}`)).json()).toMatchObject({ status: 'completed', result: { score: { points: 2, maxPoints: 3, gradingStatus: 'final' } } });
  });
});

describe('export writes the processing back unchanged', () => {
  it('each item holds the stored declarations and processing; importing the export keeps the scoring and gives the same marks', async () => {
    const res = await h.admin('GET', `${A}/tests/${testId}/export?format=qti3`);
    expect(res.statusCode).toBe(200);
    const files = unzipSync(res.rawPayload);
    const item = new TextDecoder().decode(files['items/capital-custom.xml']);
    const stored = scoringOf(questions[0]!)!;
    expect(item).toContain(stored.declarations);
    expect(item).toContain(stored.responseProcessing);
    expect(item).not.toContain('rptemplates');
    expect(new TextDecoder().decode(files['items/gravity-custom.xml'])).toContain('<qti-text-entry-interaction response-identifier="G"/>');

    const again = await importPackage(res.rawPayload);
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().report.skipped).toEqual([]);
    const reimported = (await readTest(again.json().testId)).questions;
    expect(reimported.map((q) => [q.id, q.type, q.points])).toEqual(questions.map((q) => [q.id, q.type, q.points]));
    expect(reimported.map(scoringOf)).toEqual(questions.map(scoringOf));
    for (const c of CASES) {
      const marks = (qs: Question[]) => qs.map((q) => markQuestion(q, (c.answers[q.id] as never) ?? null));
      expect(marks(reimported)).toEqual(c.points.map((points) => ({ kind: 'auto', points })));
      expect(marks(questions)).toEqual(marks(reimported));
    }
    await publish(again.json().testId);
    const id = await submitted(again.json().testId, CASES[1]!.answers, 'qti-reimported');
    expect((await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${id}`)).json().result.score.points).toBe(4);
  });
});

describe('authoring checks scoring', () => {
  const noble = () => structuredClone(questions[1]!) as Extract<Question, { type: 'multiple_choice' }>;
  const post = (q: unknown) =>
    h.admin('POST', `${A}/tests`, { title: 'Custom', description: '', durationMinutes: 10, proctoring: 'none', marking: 'auto', resultVisibility: 'immediate', questions: [q] });

  it('a question with valid scoring is created and reads back unchanged', async () => {
    const q = noble();
    const res = await post(q);
    expect(res.statusCode, res.body).toBe(201);
    expect((await readTest(res.json().testId)).questions[0]).toEqual(q);
  });

  it('processing the interpreter refuses, a response of the wrong shape, an unmapped or unknown response: 400 naming the field, nothing created', async () => {
    const before = await countTests();
    const bad = noble();
    bad.scoring!.responseProcessing = '<qti-response-processing><qti-no-such-rule/></qti-response-processing>';
    const refused = expectError(await post(bad), 400, 'invalid_request');
    expect(refused.error.details).toEqual([{ field: 'questions.0.scoring', message: expect.stringMatching(/^the QTI processing cannot be run: .+/) }]);

    const { correctOptionIds: _c, partialCredit: _p, ...rest } = noble();
    const single = { ...rest, type: 'single_choice', correctOptionId: 'neon' };
    const shape = expectError(await post(single), 400, 'invalid_request');
    expect(shape.error.details).toEqual([
      { field: 'questions.0.scoring.responses.0.identifier', message: '"RESPONSE" is declared multiple identifier, but a single_choice answer gives one option id (single identifier)' },
    ]);

    const unknown = noble();
    unknown.scoring!.responses = [{ identifier: 'ANSWER' }];
    expect(expectError(await post(unknown), 400, 'invalid_request').error.details).toEqual([
      { field: 'questions.0.scoring.responses.0.identifier', message: '"ANSWER" is not a response declared in scoring.declarations' },
      { field: 'questions.0.scoring.responses', message: 'does not map the declared response "RESPONSE"' },
    ]);

    const wrongFormat = noble() as unknown as { scoring: { format: string } };
    wrongFormat.scoring.format = 'xml';
    expectError(await post(wrongFormat), 400, 'invalid_request');
    expect(await countTests()).toBe(before);
  });
});
