import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/platform/clock.js';
import { chatCompletion, type ChatAnswer } from '../helpers/fake-chat-server.js';
import { readAssignment } from '../helpers/student.js';
import { ESSAY, aiTest, createPublishedTest, markingView, openAiRig, reply, submitEssay, type AiRig } from '../helpers/ai-marking.js';

/**
 * Failures of the model server, on a manual clock: each is retried on the
 * schedule (0, 1 s, 2 s here: three calls), then handed to a reviewer with the
 * reason; a 429's Retry-After sets the next run. Submissions never wait.
 */
const clock = manualClock(new Date('2030-03-04T10:00:00Z'));
let rig: AiRig;
let testId: string;
let n = 0;
beforeAll(async () => {
  rig = await openAiRig({ clock, ai: { timeoutMs: 1000, concurrency: 2, retryScheduleMs: [0, 1000, 2000] } });
  testId = await createPublishedTest(rig.h, rig.h.a, aiTest('decide', 0.8));
});
afterAll(() => rig.close());
beforeEach(() => {
  rig.fake.resetStats();
});

const submit = (essay = ESSAY) => submitEssay(rig.h, rig.h.a, testId, essay, { externalUserId: `fail-${++n}` });
const essayItem = async (id: string) => (await markingView(rig.h, id)).items.find((i: any) => i.questionId === 'es');
const jobOf = async (id: string) =>
  (await rig.h.pool.query("SELECT run_at, attempts FROM jobs WHERE kind = 'marking.ai_mark' AND payload->>'assignmentId' = $1", [id])).rows[0] ?? null;

/** Runs the due AI jobs, then moves the clock by each step and runs them again. */
async function runThrough(steps: number[]) {
  await rig.ai.drain();
  for (const ms of steps) {
    clock.advance(ms);
    await rig.ai.drain();
  }
}

async function expectHandedOver(id: string, reason: RegExp, attempts: number) {
  const es = await essayItem(id);
  expect(es.ai).toMatchObject({ status: 'failed', attempts, points: null, meetsDecideBar: false });
  expect(es.ai.failureReason).toMatch(reason);
  const view = await markingView(rig.h, id);
  expect(view).toMatchObject({ status: 'marking', awaitingMarking: ['es'] });
  expect(await jobOf(id)).toBeNull();
  // The reviewer takes over as for any essay.
  const done = await rig.h.admin('POST', `/api/admin/v1/assignments/${id}/marks`, { marks: [{ questionId: 'es', points: 5 }], complete: true });
  expect(done.json()).toMatchObject({ status: 'completed', score: { points: 7, markedBy: 'reviewer' } });
}

describe('retried, then handed to a reviewer with the reason', () => {
  const cases: Array<[string, ChatAnswer, RegExp]> = [
    ['malformed JSON in the reply', { body: chatCompletion('{"criteria": [ this is not json') }, /Gave up after 3 attempt\(s\): the reply is not valid JSON/],
    ['a body that is not JSON at all', { body: '<html>bad gateway</html>' }, /response that is not JSON/],
    ['500s', { status: 500, body: { error: { message: 'boom' } } }, /Gave up after 3 attempt\(s\): the model server answered HTTP 500 \(server error\)/],
    ['an invalid reply (unknown criterion)', { body: chatCompletion({ ...reply(5, 3, 0.9), criteria: [{ criterion: 'Style', points: 1, rationale: '' }] }) }, /invalid reply: unknown criterion "Style"/],
    ['a reply missing a criterion', { body: chatCompletion({ ...reply(5, 3, 0.9), criteria: [reply(5, 3, 0.9).criteria[0]] }) }, /invalid reply: criterion "Products" is missing/],
    ['timeouts', { hang: true }, /no answer from the model server within 1000 ms/],
  ];
  it.each(cases)('%s', async (_label, answer, reason) => {
    rig.fake.respond = () => answer;
    const before = rig.fake.calls.length;
    const id = await submit();
    await rig.ai.drain();
    // After the first failure: still pending, the reason shown, the job moved 1 s on.
    const first = await essayItem(id);
    expect(first.ai).toMatchObject({ status: 'pending', attempts: 1 });
    expect(first.ai.failureReason).toMatch(/^Attempt 1 failed: /);
    expect((await jobOf(id)).run_at).toEqual(new Date(clock.now().getTime() + 1000));
    await runThrough([1000, 2000]);
    expect(rig.fake.calls.length - before).toBe(3);
    await expectHandedOver(id, reason, 3);
  });

  it('a 5xx followed by a good reply recovers on the retry', async () => {
    let calls = 0;
    rig.fake.respond = () => (++calls === 1 ? { status: 503, body: {} } : { body: chatCompletion(reply(6, 3, 0.95)) });
    const id = await submit();
    await runThrough([1000]);
    expect((await essayItem(id)).ai).toMatchObject({ status: 'suggested', attempts: 2, failureReason: null });
    expect((await readAssignment(rig.h, rig.h.a, id)).status).toBe('completed');
  });
});

describe('429 with Retry-After', () => {
  it('reschedules the job at the time the server asks for, and calls again only then', async () => {
    let calls = 0;
    rig.fake.respond = () => (++calls === 1 ? { status: 429, headers: { 'retry-after': '120' }, body: { error: { message: 'slow down' } } } : { body: chatCompletion(reply(6, 4, 0.9)) });
    const id = await submit();
    await rig.ai.drain();
    const failedAt = clock.now().getTime();
    expect((await jobOf(id)).run_at).toEqual(new Date(failedAt + 120_000));
    expect((await essayItem(id)).ai.failureReason).toMatch(/HTTP 429 \(rate limited\); next attempt at 2030-03-04T10:\d\d:\d\d/);
    clock.advance(119_000);
    expect(await rig.ai.drain()).toBe(0);
    expect(calls).toBe(1);
    clock.advance(1000);
    expect(await rig.ai.drain()).toBe(1);
    expect(calls).toBe(2);
    expect((await essayItem(id)).ai).toMatchObject({ status: 'suggested', attempts: 2 });
    expect((await readAssignment(rig.h, rig.h.a, id)).result.score.markedBy).toBe('ai:test-model');
  });
});

describe('refused requests are not retried', () => {
  it('a 401 (wrong key) hands the item over at once', async () => {
    rig.fake.respond = () => ({ status: 401, body: { error: { message: 'invalid api key' } } });
    const before = rig.fake.calls.length;
    const id = await submit();
    await runThrough([1000, 2000]);
    expect(rig.fake.calls.length - before).toBe(1);
    await expectHandedOver(id, /^Not retried: the model server answered HTTP 401 \(refused the request\)\.$/, 1);
  });
});

describe('points out of range', () => {
  it('are clamped to each criterion’s range and flagged, so in decide mode a reviewer marks it', async () => {
    rig.fake.respond = () => ({ body: chatCompletion({ ...reply(9, -1, 0.99), points: 8 }) });
    const id = await submit();
    await rig.ai.drain();
    const es = await essayItem(id);
    expect(es.ai).toMatchObject({ status: 'suggested', points: 6, flags: ['points_clamped'], meetsDecideBar: false });
    expect(es.ai.criteria.map((c: any) => c.points)).toEqual([6, 0]);
    expect((await markingView(rig.h, id)).status).toBe('marking');
  });
});

describe('outages and the concurrency cap', () => {
  it('a model server that is down never blocks a submission, and the answer waits in its job', async () => {
    // Port 9 (discard) on loopback: nothing listens, the connection is refused.
    const down = await openAiRig({ clock, ai: { baseUrl: 'http://127.0.0.1:9/v1', retryScheduleMs: [0, 1000] } });
    try {
      const tid = await createPublishedTest(down.h, down.h.a, aiTest('decide'));
      const id = await submitEssay(down.h, down.h.a, tid, ESSAY);
      expect((await readAssignment(down.h, down.h.a, id)).status).toBe('marking');
      const job = (await down.h.pool.query("SELECT payload FROM jobs WHERE kind = 'marking.ai_mark'")).rows[0];
      expect(job.payload).toEqual({ institutionId: down.h.a.institutionId, assignmentId: id, questionId: 'es' });
      await down.ai.drain();
      const es = (await markingView(down.h, id)).items.find((i: any) => i.questionId === 'es');
      expect(es.ai).toMatchObject({ status: 'pending', attempts: 1, failureReason: expect.stringMatching(/refused the connection/) });
      expect(es.answer).toBe(ESSAY);
    } finally {
      await down.close();
    }
  });

  it('never has more calls in flight than ASSAY_AI_CONCURRENCY', async () => {
    rig.fake.respond = () => ({ delayMs: 150, body: chatCompletion(reply(6, 4, 0.9)) });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await submit());
    rig.fake.resetStats();
    const before = rig.fake.calls.length;
    await rig.ai.drain();
    expect(rig.fake.calls.length - before).toBe(6);
    expect(rig.fake.maxInFlight).toBe(2);
    for (const id of ids) expect((await readAssignment(rig.h, rig.h.a, id)).status).toBe('completed');
  });

  it('the provider itself queues calls beyond the cap, whoever calls it', async () => {
    rig.fake.respond = () => ({ delayMs: 100, body: chatCompletion(reply(6, 4, 0.9)) });
    rig.fake.resetStats();
    const provider = rig.ai.provider!;
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () => provider.complete({ messages: [{ role: 'user', content: 'x' }], schema: {} }, clock.now())),
    );
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(rig.fake.maxInFlight).toBe(2);
  });
});
