import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { returnUrl } from '../../src/modules/student/return-url.js';
import { runAutoSubmitJob } from '../../src/modules/marking/run-auto-submit.js';
import { detailFields, expectError } from '../helpers/expect-error.js';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { ALL_TYPES_TEST, Student, assign, createPublishedTest, readAssignment } from '../helpers/student.js';

// The harness tenants' test is "Arithmetic" (auto, immediate, 20 minutes, pass 50%):
// q0 single_choice "2 + 2?" correct "b" (1 point), q1 numeric "10 / 4?" = 2.5 (1 point).
const clock = manualClock(new Date('2031-05-01T08:00:00Z'));
let h: Harness;
let hybridTestId: string;
beforeAll(async () => {
  h = await createHarness({ clock });
  hybridTestId = await createPublishedTest(h, h.a, ALL_TYPES_TEST);
});
afterAll(() => h.close());

const MINUTE = 60_000;

async function events(assignmentId: string) {
  const { rows } = await h.pool.query('SELECT type, data FROM events WHERE assignment_id = $1 ORDER BY sequence', [assignmentId]);
  return rows as Array<{ type: string; data: Record<string, any> }>;
}
async function questionIds(assignmentId: string): Promise<string[]> {
  return (await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}`)).json().items.map((i: { questionId: string }) => i.questionId);
}
async function answers(assignmentId: string) {
  return (await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}`)).json().items.map((i: { answer: unknown }) => i.answer);
}
async function started(externalUserId: string, overrides: Record<string, unknown> = {}) {
  const a = await assign(h, h.a, { externalUserId, ...overrides });
  const s = new Student(h);
  await s.start(a.startUrl);
  await s.page(a.assignmentId);
  return { ...a, s, q: await questionIds(a.assignmentId) };
}

describe('Begin', () => {
  it('starts once (assigned → started, exam.started, startedAt) when pressed twice', async () => {
    const a = await assign(h, h.a, { externalUserId: 'begin-1' });
    const s = new Student(h);
    await s.open(a.startUrl);
    await s.page(a.assignmentId);
    expect((await s.begin(a.assignmentId)).statusCode).toBe(303);
    const first = await readAssignment(h, h.a, a.assignmentId);
    expect(first.status).toBe('started');
    expect(first.startedAt).toBe(clock.now().toISOString());
    clock.advance(1000);
    expect((await s.begin(a.assignmentId)).statusCode).toBe(303);
    expect((await readAssignment(h, h.a, a.assignmentId)).startedAt).toBe(first.startedAt);
    expect((await events(a.assignmentId)).map((e) => e.type)).toEqual(['exam.started']);
  });

  it('starts once when two tabs press it at the same moment', async () => {
    const a = await assign(h, h.a, { externalUserId: 'begin-2' });
    const tab1 = new Student(h);
    await tab1.open(a.startUrl);
    await tab1.page(a.assignmentId);
    const tab2 = new Student(h);
    await tab2.open(a.startUrl);
    await tab2.page(a.assignmentId);
    const results = await Promise.all([tab1, tab2, tab1, tab2, tab1].map((t) => t.begin(a.assignmentId)));
    expect(results.map((r) => r.statusCode)).toEqual([303, 303, 303, 303, 303]);
    expect((await events(a.assignmentId)).map((e) => [e.type, e.data.sequence])).toEqual([['exam.started', 1]]);
    const jobs = await h.pool.query("SELECT count(*)::int AS n FROM jobs WHERE kind = 'attempt.auto_submit' AND payload->>'assignmentId' = $1", [a.assignmentId]);
    expect(jobs.rows[0].n).toBe(1);
  });
});

describe('the test page', () => {
  it('renders every question with its saved answer and the time left, and no answer key', async () => {
    const a = await assign(h, h.a, { testId: hybridTestId, externalUserId: 'page-1' });
    const s = new Student(h);
    await s.start(a.startUrl);
    await s.page(a.assignmentId);
    await s.save(a.assignmentId, [
      { questionId: 'sc', value: 'b', version: 1 },
      { questionId: 'mc', value: ['four'], version: 1 },
      { questionId: 'st', value: '<b>warm</b>', version: 1 },
      { questionId: 'es', value: 'one two three', version: 1 },
    ]);
    clock.advance(90_000);
    // Re-opening the link resumes the same attempt.
    expect((await s.open(a.startUrl)).headers.location).toBe(`/a/${a.assignmentId}`);
    const page = (await s.page(a.assignmentId)).body;
    expect(page).toContain('<legend><span class="question-number">Question 1</span> <span class="prompt" id="question-1-prompt">Capital of France?</span>');
    expect(page).toContain('<input type="radio" name="q1" id="q1-o2" value="b" checked><label for="q1-o2">Lyon</label>');
    expect(page).toContain('<input type="checkbox" name="q2" id="q2-o3" value="four" checked>');
    expect(page).toContain('value="&lt;b&gt;warm&lt;/b&gt;"');
    expect(page).toContain('3 words of at most 50');
    expect(page).toContain('4 of 5 answered');
    expect(page).toContain('<span id="timer-value" role="timer">28:30</span>');
    const state = JSON.parse(/<script type="application\/json" id="assay-state">(.*?)<\/script>/s.exec(page)![1]!);
    expect(state.deadline).toBe(new Date(clock.now().getTime() + 28.5 * MINUTE).toISOString());
    expect(state.serverNow).toBe(clock.now().toISOString());
    for (const secret of ['correctOptionId', 'acceptedAnswers', '"hot"', 'tolerance', 'partialCredit']) expect(page).not.toContain(secret);
  });
});

describe('autosave', () => {
  it('keeps the latest version: a stale save never overwrites a newer one, and a replay is harmless', async () => {
    const { assignmentId, s, q } = await started('save-1');
    const save = (value: unknown, version: number) => s.save(assignmentId, [{ questionId: q[1]!, value, version }]);
    expect((await save('2', 10)).json().results).toEqual([{ questionId: q[1], version: 10, saved: true }]);
    const stale = await save('1', 9);
    expect(stale.statusCode).toBe(200);
    expect(stale.json().results).toEqual([{ questionId: q[1], version: 10, saved: false }]);
    expect((await save('2', 10)).json().results[0]).toEqual({ questionId: q[1], version: 10, saved: true });
    expect((await answers(assignmentId))[1]).toBe('2');
    expect((await save('2.5', 11)).json().results[0].saved).toBe(true);
    expect((await save(null, 12)).json().results[0].saved).toBe(true);
    expect((await save('9', 11)).json().results[0].saved).toBe(false);
    expect((await answers(assignmentId))[1]).toBeNull();
  });

  it('keeps the newest of many concurrent saves of one question', async () => {
    const { assignmentId, s, q } = await started('save-2');
    const versions = Array.from({ length: 20 }, (_, i) => i + 1).sort(() => Math.random() - 0.5);
    await Promise.all(versions.map((v) => s.save(assignmentId, [{ questionId: q[1]!, value: String(v), version: v }])));
    expect((await answers(assignmentId))[1]).toBe('20');
  });

  it('refuses a request with any bad answer and stores none of it', async () => {
    const { assignmentId, s, q } = await started('save-3');
    const bad = await s.save(assignmentId, [
      { questionId: q[1]!, value: '3', version: 1 },
      { questionId: 'nope', value: 'x', version: 1 },
      { questionId: q[0]!, value: 'z', version: 1 },
      { questionId: q[1]!, value: '4', version: 2 },
    ]);
    expectError(bad, 400, 'invalid_request');
    expect(detailFields(bad)).toEqual(['answers.1.questionId', 'answers.2.value', 'answers.3.questionId']);
    expectError(await s.save(assignmentId, [{ questionId: q[0]!, value: ['b'], version: 1 }]), 400, 'invalid_request');
    expectError(await s.save(assignmentId, [{ questionId: q[1]!, value: '1', version: 0 }]), 400, 'invalid_request');
    expectError(await s.save(assignmentId, [{ questionId: q[1]!, value: 1, version: 1 }]), 400, 'invalid_request');
    expect(await answers(assignmentId)).toEqual([null, null]);
  });

  it('is refused before Begin and after submission', async () => {
    const a = await assign(h, h.a, { externalUserId: 'save-4' });
    const s = new Student(h);
    await s.open(a.startUrl);
    await s.page(a.assignmentId);
    const q = await questionIds(a.assignmentId);
    expectError(await s.save(a.assignmentId, [{ questionId: q[0]!, value: 'b', version: 1 }]), 404, 'not_found');
    await s.begin(a.assignmentId);
    await s.submit(a.assignmentId);
    expectError(await s.save(a.assignmentId, [{ questionId: q[0]!, value: 'b', version: 1 }]), 409, 'invalid_state');
  });
});

describe('submission', () => {
  it('auto-marks an immediate test and completes it in one step, with the result on the page and in the partner read', async () => {
    const { assignmentId, s, q } = await started('submit-1', { callbackUrl: 'https://alpha-college.example/done?course=Maths%20101&status=old' });
    await s.save(assignmentId, [{ questionId: q[0]!, value: 'b', version: 1 }, { questionId: q[1]!, value: '2,5', version: 1 }]);
    clock.advance(5 * MINUTE);
    expect((await s.submit(assignmentId)).headers.location).toBe(`/a/${assignmentId}`);
    const read = await readAssignment(h, h.a, assignmentId);
    expect(read).toMatchObject({ status: 'completed', submittedAt: clock.now().toISOString(), completedAt: clock.now().toISOString() });
    expect(read.result).toEqual({ available: true, score: { points: 2, maxPoints: 2, percent: 100, passed: true, gradingStatus: 'final', markedAt: clock.now().toISOString() }, reportUrl: expect.stringMatching(/^http:\/\/assay\.test\/reports\//) });
    const ev = await events(assignmentId);
    expect(ev.map((e) => [e.type, e.data.status])).toEqual([['exam.started', 'started'], ['exam.completed', 'completed']]);
    expect(ev[1]!.data.score).toEqual(read.result.score);

    const page = (await s.page(assignmentId)).body;
    expect(page).toContain('<h1>Your result</h1>');
    expect(page).toContain('<dd>2 of 2 points</dd>');
    expect(page).toContain('<dd>100%</dd>');
    expect(page).toContain('>Passed</dd>');
    expect(page).toContain(
      `href="https://alpha-college.example/done?course=Maths%20101&amp;partnerAssignmentId=${assignmentId}&amp;externalUserId=submit-1&amp;status=completed">Return to Alpha College</a>`,
    );
  });

  it('happens exactly once when Submit is double-clicked while the deadline job runs', async () => {
    const { assignmentId, s, q } = await started('submit-2');
    await s.save(assignmentId, [{ questionId: q[0]!, value: 'a', version: 1 }]);
    clock.advance(21 * MINUTE);
    const [x, y] = await Promise.all([s.submit(assignmentId), s.submit(assignmentId), h.runJobs(), runAutoSubmitJob(h.ctx, assignmentId)]);
    expect([x.statusCode, y.statusCode]).toEqual([303, 303]);
    const ev = await events(assignmentId);
    expect(ev.filter((e) => e.type === 'exam.completed')).toHaveLength(1);
    expect((await readAssignment(h, h.a, assignmentId)).result.score).toMatchObject({ points: 0, maxPoints: 2, passed: false });
    const marks = await h.pool.query('SELECT count(*)::int AS n FROM marks WHERE assignment_id = $1', [assignmentId]);
    expect(marks.rows[0].n).toBe(2);
  });

  it('never loses a save it accepted while a submission runs: every accepted save is in the marked answers', async () => {
    const { assignmentId, s, q } = await started('submit-race');
    const saves = Array.from({ length: 30 }, (_, i) => s.save(assignmentId, [{ questionId: q[0]!, value: i % 2 === 0 ? 'a' : 'b', version: i + 1 }]));
    const [submitted, ...saved] = await Promise.all([s.submit(assignmentId), ...saves]);
    expect(submitted.statusCode).toBe(303);
    const accepted = saved.filter((r) => r.statusCode === 200 && r.json().results[0].saved).map((r) => JSON.parse(r.payload).results[0].version as number);
    for (const r of saved) expect([200, 409]).toContain(r.statusCode);
    const stored = await h.pool.query('SELECT version::int AS version, value FROM answers WHERE assignment_id = $1', [assignmentId]);
    const mark = await h.pool.query("SELECT points::float AS points FROM marks WHERE assignment_id = $1 AND question_id = $2", [assignmentId, q[0]]);
    if (accepted.length === 0) {
      expect(stored.rows).toEqual([]);
    } else {
      expect(stored.rows[0].version).toBe(Math.max(...accepted));
      expect(mark.rows[0].points).toBe(stored.rows[0].value === 'b' ? 1 : 0);
    }
  });

  it('shows the completion page, not a retake, when the link is opened again', async () => {
    const { assignmentId, s, startUrl } = await started('submit-3');
    await s.submit(assignmentId);
    const again = new Student(h);
    expect((await again.open(startUrl)).headers.location).toBe(`/a/${assignmentId}`);
    const page = await again.page(assignmentId);
    expect(page.body).toContain('<h1>Your result</h1>');
    expect(page.body).not.toContain('Begin test');
    expect((await s.begin(assignmentId)).statusCode).toBe(303);
    expect((await events(assignmentId)).map((e) => e.type)).toEqual(['exam.started', 'exam.completed']);
  });
});

describe('time running out', () => {
  it('with the page closed, the server submits at deadline + grace with the answers saved so far', async () => {
    const { assignmentId, s, q } = await started('time-1');
    await s.save(assignmentId, [{ questionId: q[0]!, value: 'b', version: 1 }]);
    clock.advance(20 * MINUTE + 10_000);
    // Within the grace a late save still lands, and the job is not due yet.
    expect((await s.save(assignmentId, [{ questionId: q[1]!, value: '2.5', version: 1 }])).statusCode).toBe(200);
    await h.runJobs();
    expect((await readAssignment(h, h.a, assignmentId)).status).toBe('started');
    clock.advance(20_001);
    expectError(await s.save(assignmentId, [{ questionId: q[1]!, value: '3', version: 2 }]), 409, 'invalid_state');
    await h.runJobs();
    const read = await readAssignment(h, h.a, assignmentId);
    expect(read).toMatchObject({ status: 'completed', submittedAt: clock.now().toISOString() });
    expect(read.result.score).toMatchObject({ points: 2, maxPoints: 2, gradingStatus: 'final' });
    const attempt = await h.pool.query('SELECT submitted_by FROM attempts WHERE assignment_id = $1', [assignmentId]);
    expect(attempt.rows[0].submitted_by).toBe('deadline');
    expect((await events(assignmentId)).map((e) => e.type)).toEqual(['exam.started', 'exam.completed']);
  });

  it('is caught on the next page load if the deadline job has not run', async () => {
    const { assignmentId, s } = await started('time-2');
    clock.advance(21 * MINUTE);
    expect((await s.page(assignmentId)).body).toContain('<h1>Your result</h1>');
    expect((await readAssignment(h, h.a, assignmentId)).status).toBe('completed');
    await h.runJobs();
    expect((await events(assignmentId)).filter((e) => e.type === 'exam.completed')).toHaveLength(1);
  });

  it('an after_review test goes to marking, and its page says marking is in progress', async () => {
    const { assignmentId, s } = await started('time-3', { testId: hybridTestId });
    await s.save(assignmentId, [{ questionId: 'es', value: 'Some words.', version: 1 }]);
    clock.advance(31 * MINUTE);
    await h.runJobs();
    const read = await readAssignment(h, h.a, assignmentId);
    expect(read).toMatchObject({ status: 'marking', completedAt: null, result: { available: false } });
    const page = (await s.page(assignmentId)).body;
    expect(page).toContain('<h1>Marking in progress</h1>');
    expect(page).toContain('status=marking');
  });
});

describe('the return link', () => {
  it('appends the three parameters, keeps the callbackUrl’s own, and encodes values', () => {
    expect(returnUrl('https://p.example/cb?x=%2F&flag&status=old', { assignmentId: 'asg_1', externalUserId: 'a b&c=d/é', status: 'submitted' })).toBe(
      'https://p.example/cb?x=%2F&flag&partnerAssignmentId=asg_1&externalUserId=a+b%26c%3Dd%2F%C3%A9&status=submitted',
    );
    expect(returnUrl('https://p.example/cb', { assignmentId: 'asg_1', externalUserId: 'u', status: 'marking' })).toBe(
      'https://p.example/cb?partnerAssignmentId=asg_1&externalUserId=u&status=marking',
    );
  });
});
