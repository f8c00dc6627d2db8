import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWebhookRig, registerEndpoint, type WebhookRig } from '../helpers/webhook-setup.js';
import type { Tenant } from '../helpers/harness.js';
import { testModeTenant } from '../helpers/test-mode.js';
import { ALL_TYPES_TEST, assign, createPublishedTest, Student } from '../helpers/student.js';
import { proctoredTest } from '../helpers/proctoring.js';

/**
 * Simulated steps on test-mode assignments go through the real flow: the same
 * statuses, the same events, delivered (signed, verified here with the public
 * standardwebhooks library) to test-mode endpoints only, with livemode false.
 */
let rig: WebhookRig;
let live: Tenant;
let test: Tenant;
let hybridTestId: string;
const P = '/api/partner/v1';

beforeAll(async () => {
  rig = await openWebhookRig();
  live = rig.h.a;
  test = await testModeTenant(rig.h, rig.h.a);
  hybridTestId = await createPublishedTest(rig.h, live, ALL_TYPES_TEST);
  await registerEndpoint(rig.h, test, rig.rx, '/test-hook');
  await registerEndpoint(rig.h, live, rig.rx, '/live-hook');
});
afterAll(() => rig?.close());

const simulate = (t: Tenant, id: string, body: unknown) => rig.h.partner(t, 'POST', `${P}/assignments/${id}/simulate`, body);
const received = (path: string, assignmentId: string) =>
  rig.rx.received.filter((r) => r.path === path && r.answered === 200 && r.json.data.partnerAssignmentId === assignmentId);
const types = (path: string, assignmentId: string) =>
  received(path, assignmentId)
    .sort((x, y) => x.json.data.sequence - y.json.data.sequence)
    .map((r) => r.json.type);

async function createTestMode(overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await rig.h.partner(test, 'POST', `${P}/assignments`, {
    externalUserId: `sim-${Math.random().toString(36).slice(2, 8)}`,
    testId: test.testId,
    user: { email: 'dev@example.org' },
    callbackUrl: test.callbackUrl,
    ...overrides,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().assignmentId;
}

describe('simulate', () => {
  it('start, submit with a score and finish_marking emit the events of a real run, to test-mode endpoints only', async () => {
    // The real flow on a live assignment of the same test: a student begins and submits, a reviewer finishes.
    const real = await assign(rig.h, live, { testId: hybridTestId, externalUserId: 'real-student' });
    const student = new Student(rig.h);
    await student.start(real.startUrl);
    expect((await student.submit(real.assignmentId)).statusCode).toBe(303);
    const marked = await rig.h.admin('POST', `/api/admin/v1/assignments/${real.assignmentId}/marks`, { marks: [{ questionId: 'es', points: 10 }], complete: true });
    expect(marked.statusCode, marked.body).toBe(200);
    await rig.rx.waitFor(() => types('/live-hook', real.assignmentId).length === 3, 10_000, 'the live run\'s events');

    const id = await createTestMode({ testId: hybridTestId });
    const started = await simulate(test, id, { action: 'start' });
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json()).toMatchObject({ assignmentId: id, status: 'started' });
    expect(started.json().startedAt).not.toBeNull();

    // 50 % of 20 points: sc (2) + mc (4) + st (1) + nu (3) = 10, the essay left to marking.
    const submitted = await simulate(test, id, { action: 'submit', score: 50 });
    expect(submitted.statusCode, submitted.body).toBe(200);
    expect(submitted.json()).toMatchObject({ status: 'marking', result: { available: false, score: { points: 10, maxPoints: 20, gradingStatus: 'pending_review' } } });

    const finished = await simulate(test, id, { action: 'finish_marking', score: 75 });
    expect(finished.statusCode, finished.body).toBe(200);
    expect(finished.json()).toMatchObject({ status: 'completed', result: { available: true, score: { points: 15, maxPoints: 20, percent: 75, gradingStatus: 'final', passed: true } } });
    // Same view as the read.
    const read = await rig.h.partner(test, 'GET', `${P}/assignments/${id}`);
    expect(read.body).toBe(finished.body);

    await rig.rx.waitFor(() => types('/test-hook', id).length === 3, 10_000, 'the simulated run\'s events');
    expect(types('/test-hook', id)).toEqual(types('/live-hook', real.assignmentId));
    expect(types('/test-hook', id)).toEqual(['exam.started', 'exam.completed', 'grading.done']);
    for (const r of received('/test-hook', id)) {
      expect(r.verifiedWith).toEqual([true]);
      expect(r.json).toMatchObject({ livemode: false });
      expect(r.body).toContain('"livemode":false');
    }
    for (const r of received('/live-hook', real.assignmentId)) expect(r.json).toMatchObject({ livemode: true });
    // The live endpoint never heard of the test-mode assignment, nor the test endpoint of the live one.
    expect(rig.rx.received.filter((r) => r.path === '/live-hook' && r.json.data.partnerAssignmentId === id)).toEqual([]);
    expect(rig.rx.received.filter((r) => r.path === '/test-hook' && r.json.data.partnerAssignmentId === real.assignmentId)).toEqual([]);
    // The grading.done score is the one the read shows; the reviewer mark went through the marking service.
    const grading = received('/test-hook', id).find((r) => r.json.type === 'grading.done')!;
    expect(grading.json.data.score).toMatchObject({ points: 15, percent: 75, markedBy: 'reviewer' });
  });

  it('submit with answers saves them as autosave does and auto-marks them; an auto test completes at once', async () => {
    const id = await createTestMode();
    expect((await simulate(test, id, { action: 'start' })).statusCode).toBe(200);
    const res = await simulate(test, id, { action: 'submit', answers: [{ questionId: 'q_1', value: null }] });
    // The harness test's question ids are generated: unknown ids are 400 and nothing changes.
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details[0].field).toBe('answers.0.questionId');
    expect((await rig.h.partner(test, 'GET', `${P}/assignments/${id}`)).json().status).toBe('started');

    const empty = await simulate(test, id, { action: 'submit' });
    expect(empty.statusCode, empty.body).toBe(200);
    expect(empty.json()).toMatchObject({ status: 'completed', result: { available: true, score: { points: 0, maxPoints: 2, passed: false } } });
  });

  it('a test-mode start link is real: the developer opens it and takes the test as a student would', async () => {
    const created = await rig.h.partner(test, 'POST', `${P}/assignments`, {
      externalUserId: 'dev-browser',
      testId: test.testId,
      user: { email: 'dev@example.org' },
      callbackUrl: test.callbackUrl,
    });
    const { assignmentId, startUrl } = created.json();
    const student = new Student(rig.h);
    expect(await student.start(startUrl)).toBe(assignmentId);
    expect((await student.submit(assignmentId)).statusCode).toBe(303);
    expect((await rig.h.partner(test, 'GET', `${P}/assignments/${assignmentId}`)).json().status).toBe('completed');
    await rig.rx.waitFor(() => types('/test-hook', assignmentId).length === 2, 10_000, 'the browser run\'s events');
    expect(received('/test-hook', assignmentId).every((r) => r.json.livemode === false)).toBe(true);
  });

  it('submit with a score of 100 answers every auto-marked question right', async () => {
    const id = await createTestMode();
    await simulate(test, id, { action: 'start' });
    const res = await simulate(test, id, { action: 'submit', score: 100 });
    expect(res.json().result.score).toMatchObject({ points: 2, maxPoints: 2, percent: 100, passed: true });
    await rig.rx.waitFor(() => types('/test-hook', id).length === 2, 10_000, 'exam.started and exam.completed');
    expect(received('/test-hook', id).find((r) => r.json.type === 'exam.completed')!.json.data.score).toMatchObject({ points: 2 });
  });

  it('violation records a critical flag through the proctoring module and sends violation.detected', async () => {
    const proctored = await createPublishedTest(rig.h, live, proctoredTest('live_ai'));
    const id = await createTestMode({ testId: proctored });
    await simulate(test, id, { action: 'start' });
    const res = await simulate(test, id, { action: 'violation' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().proctoring).toMatchObject({ mode: 'live_ai', flags: { critical: 1 }, reviewStatus: 'pending' });
    const report = (await rig.h.partner(test, 'GET', `${P}/assignments/${id}/proctoring`)).json();
    expect(report.flags).toEqual([expect.objectContaining({ kind: 'multiple_faces', severity: 'critical' })]);

    const left = await simulate(test, id, { action: 'violation', violationKind: 'left_test' });
    expect(left.json().proctoring.flags.critical).toBe(2);
    await rig.rx.waitFor(() => types('/test-hook', id).filter((t) => t === 'violation.detected').length === 2, 10_000, 'two violations');
    const violations = received('/test-hook', id).filter((r) => r.json.type === 'violation.detected');
    expect(violations.map((v) => v.json.data.violation.kind).sort()).toEqual(['left_test', 'multiple_faces']);
    expect(violations.every((v) => v.json.livemode === false && v.verifiedWith[0] === true)).toBe(true);
    // Each event names a flag of the proctoring record.
    const flags = (await rig.h.partner(test, 'GET', `${P}/assignments/${id}/proctoring`)).json().flags as Array<{ id: string }>;
    expect(violations.map((v) => v.json.data.violation.id).sort()).toEqual(flags.map((f) => f.id).sort());
  });

  it('violation on a test that is not proctored, or a face kind on a record test, is 409', async () => {
    const id = await createTestMode();
    await simulate(test, id, { action: 'start' });
    const res = await simulate(test, id, { action: 'violation' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'invalid_state' });
    expect(res.json().error.message).toMatch(/not proctored/);

    const recorded = await createPublishedTest(rig.h, live, proctoredTest('record'));
    const rid = await createTestMode({ testId: recorded });
    await simulate(test, rid, { action: 'start' });
    const face = await simulate(test, rid, { action: 'violation', violationKind: 'no_face' });
    expect(face.statusCode).toBe(409);
    expect((await simulate(test, rid, { action: 'violation' })).json().proctoring.flags.critical).toBe(1);
  });

  it('expire expires an assigned assignment as the due-date job does', async () => {
    const id = await createTestMode({ dueAt: new Date(Date.now() + 86_400_000).toISOString() });
    const res = await simulate(test, id, { action: 'expire' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'expired', startUrl: null });
    await rig.rx.waitFor(() => types('/test-hook', id).length === 1, 10_000, 'assignment.expired');
    expect(received('/test-hook', id)[0]!.json).toMatchObject({ type: 'assignment.expired', livemode: false, data: { status: 'expired' } });
    // The scheduled expiry job is gone with it.
    const jobs = await rig.h.pool.query('SELECT 1 FROM jobs WHERE unique_key = $1', [`expire:${id}`]);
    expect(jobs.rowCount).toBe(0);
  });

  it('an action not valid in the state is 409 invalid_state naming the state, and changes nothing', async () => {
    const id = await createTestMode();
    for (const action of ['submit', 'violation', 'finish_marking']) {
      const res = await simulate(test, id, { action });
      expect(res.statusCode, action).toBe(409);
      expect(res.json().error.code).toBe('invalid_state');
      expect(res.json().error.message).toContain('is assigned');
    }
    await simulate(test, id, { action: 'start' });
    for (const action of ['start', 'expire', 'finish_marking']) {
      const res = await simulate(test, id, { action });
      expect(res.statusCode, action).toBe(409);
      expect(res.json().error.message).toContain('is started');
    }
    expect((await rig.h.partner(test, 'GET', `${P}/assignments/${id}`)).json().status).toBe('started');
    expect(types('/test-hook', id).length).toBeLessThanOrEqual(1);
  });

  it('a bad body is 400 and changes nothing', async () => {
    const id = await createTestMode();
    for (const body of [
      {},
      { action: 'teleport' },
      { action: 'start', extra: true },
      { action: 'start', score: 50 },
      { action: 'submit', score: 101 },
      { action: 'violation', violationKind: 'fullscreen_exit' },
      { action: 'submit', score: 10, answers: [{ questionId: 'x', value: 'a' }] },
      'not json',
    ]) {
      const res = await simulate(test, id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    }
    expect((await rig.h.partner(test, 'GET', `${P}/assignments/${id}`)).json().status).toBe('assigned');
  });

  it('with a live key the route does not exist (404), even for a live assignment; a test key cannot reach a live id', async () => {
    const liveId = (await assign(rig.h, live, { externalUserId: 'live-only' })).assignmentId;
    const res = await simulate(live, liveId, { action: 'start' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
    expect(res.json().error.message).toMatch(/test-mode keys/);
    expect(res.body).not.toContain(liveId);
    expect((await simulate(test, liveId, { action: 'start' })).statusCode).toBe(404);
    expect((await rig.h.partner(live, 'GET', `${P}/assignments/${liveId}`)).json().status).toBe('assigned');
  });

  it('the OpenAPI document shows the simulate route and livemode on events', async () => {
    const doc = (await rig.h.app.inject({ method: 'GET', url: `${P}/openapi.json` })).json();
    const op = doc.paths['/api/partner/v1/assignments/{assignmentId}/simulate'].post;
    expect(op.operationId).toBe('simulateAssignment');
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404', '409']));
    expect(doc.paths['/api/partner/v1/test-data'].delete.operationId).toBe('deleteTestData');
    expect(JSON.stringify(doc.components.schemas.Event ?? doc)).toContain('"livemode"');
  });
});
