import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { registerEndpoint, openWebhookRig, type Dispatcher, type WebhookRig } from '../helpers/webhook-setup.js';
import type { Receiver } from '../helpers/webhook-receiver.js';
import { createPublishedTest } from '../helpers/student.js';
import { flagsOf, proctoredTest, signal, startProctored, type Proctored } from '../helpers/proctoring.js';

/**
 * Review of critical flags (operator API) → integrity.reviewed once, and what
 * partners read: the assignment's proctoring summary and the proctoring
 * record with review outcomes.
 */
const clock = manualClock(new Date());
let rig: WebhookRig;
let h: Harness;
let rx: Receiver;
let dispatcher: Dispatcher;
let testId: string;
const HOOK = '/integrity';
const A = '/api/admin/v1/assignments';
const P = '/api/partner/v1/assignments';

beforeAll(async () => {
  rig = await openWebhookRig({ clock, start: false });
  ({ h, rx, dispatcher } = rig);
  await registerEndpoint(h, h.a, rx, HOOK, { eventTypes: ['integrity.reviewed'] });
  testId = await createPublishedTest(h, h.a, proctoredTest('live_ai', { noFaceSeconds: 20 }));
});
afterAll(() => rig.close());

const partnerRead = async (id: string) => (await h.partner(h.a, 'GET', `${P}/${id}`)).json().proctoring;
const review = (id: string, body: unknown) => h.admin('POST', `${A}/${id}/proctoring/review`, body);
const integrityAt = (id: string) => rx.received.filter((r) => r.path === HOOK && r.json.data.partnerAssignmentId === id);

describe('a reviewed attempt', () => {
  let p: Proctored;
  let critical: string[];
  let warning: string;

  it('the partner read shows the counts and reviewStatus pending while critical flags await a reviewer', async () => {
    p = await startProctored(h, h.a, testId, 'reviewed-student');
    expect(await partnerRead(p.assignmentId)).toEqual({ mode: 'live_ai', flags: { critical: 0, warning: 0, info: 0 }, reviewStatus: 'not_required' });
    clock.advance(30_000);
    const flags = flagsOf(
      await p.heartbeat([
        signal('nf-0000001', 'no_face', 25, new Date(clock.now().getTime() - 25_000), false), // 20 s rule for this test
        signal('cam-000001', 'camera_stopped', 0, new Date(clock.now().getTime() - 1_000), false),
        signal('nf-0000002', 'no_face', 12, new Date(clock.now().getTime() - 12_000), false),
        signal('cp-0000001', 'copy_paste', 0, clock.now(), false),
      ]),
    );
    critical = flags.filter((f) => f.severity === 'critical').map((f) => f.flagId);
    warning = flags.find((f) => f.signalId === 'nf-0000002')!.flagId;
    expect(critical).toHaveLength(2);
    expect(flags.map((f) => f.severity)).toEqual(['critical', 'critical', 'warning', 'warning']);
    expect(await partnerRead(p.assignmentId)).toEqual({ mode: 'live_ai', flags: { critical: 2, warning: 2, info: 0 }, reviewStatus: 'pending' });
  });

  it('is not reviewable before submission (409), and then refuses non-critical, unknown and repeated flags with 400, changing nothing', async () => {
    expectError(await review(p.assignmentId, { reviews: [{ flagId: critical[0], outcome: 'confirmed', note: 'seen' }] }), 409, 'invalid_state');
    expect((await p.student.submit(p.assignmentId)).statusCode).toBe(303);
    for (const [body, field] of [
      [{ reviews: [{ flagId: warning, outcome: 'confirmed', note: 'x' }] }, 'reviews.0.flagId'],
      [{ reviews: [{ flagId: critical[0], outcome: 'confirmed', note: 'x' }, { flagId: 'flg_unknown0000000000000', outcome: 'dismissed', note: 'y' }] }, 'reviews.1.flagId'],
      [{ reviews: [{ flagId: critical[0], outcome: 'confirmed', note: 'x' }, { flagId: critical[0], outcome: 'confirmed', note: 'x' }] }, 'reviews.1.flagId'],
      [{ reviews: [{ flagId: critical[0], outcome: 'maybe', note: 'x' }] }, 'reviews.0.outcome'],
      [{ reviews: [{ flagId: critical[0], outcome: 'confirmed', note: '' }] }, 'reviews.0.note'],
    ] as const) {
      const res = await review(p.assignmentId, body);
      expectError(res, 400, 'invalid_request');
      expect(res.json().error.details[0].field).toBe(field);
    }
    const flags = (await h.admin('GET', `${A}/${p.assignmentId}/proctoring`)).json().flags;
    expect(flags.every((f: { review: unknown }) => f.review === null)).toBe(true);
  });

  it('reviewing one critical flag leaves the review pending and sends nothing; the last one sends integrity.reviewed once', async () => {
    const first = await review(p.assignmentId, { reviews: [{ flagId: critical[0], outcome: 'confirmed', note: 'No face for 25 s on the recording.' }], reviewer: 'Dana Reviewer' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().summary).toMatchObject({ reviewStatus: 'pending', confirmed: 1, dismissed: 0 });
    expect(await partnerRead(p.assignmentId)).toMatchObject({ reviewStatus: 'pending' });

    clock.advance(1_000);
    const last = await review(p.assignmentId, { reviews: [{ flagId: critical[1], outcome: 'dismissed', note: 'Camera glitch, picture back at once.' }] });
    expect(last.statusCode).toBe(200);
    expect(last.json().summary).toEqual({ critical: 2, warning: 2, info: 0, confirmed: 1, dismissed: 1, reviewStatus: 'reviewed' });
    const reviewed = last.json().flags.find((f: { id: string }) => f.id === critical[0]);
    expect(reviewed.review).toMatchObject({ outcome: 'confirmed', note: 'No face for 25 s on the recording.', reviewer: 'Dana Reviewer' });

    // The same decision again is a harmless repeat; another decision is refused.
    expect((await review(p.assignmentId, { reviews: [{ flagId: critical[1], outcome: 'dismissed', note: 'Camera glitch, picture back at once.' }] })).statusCode).toBe(200);
    expectError(await review(p.assignmentId, { reviews: [{ flagId: critical[1], outcome: 'confirmed', note: 'changed my mind' }] }), 409, 'invalid_state');

    await dispatcher.drain();
    const sent = integrityAt(p.assignmentId);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.verifiedWith).toEqual([true]);
    expect(sent[0]!.json.type).toBe('integrity.reviewed');
    expect(sent[0]!.json.data).toMatchObject({
      partnerAssignmentId: p.assignmentId,
      externalUserId: 'reviewed-student',
      testId,
      status: 'completed',
      integrity: { confirmed: 1, dismissed: 1 },
    });
    const stored = await h.pool.query(`SELECT count(*)::int AS n FROM events WHERE assignment_id = $1 AND type = 'integrity.reviewed'`, [p.assignmentId]);
    expect(stored.rows[0].n).toBe(1);
    expect(await partnerRead(p.assignmentId)).toEqual({ mode: 'live_ai', flags: { critical: 2, warning: 2, info: 0 }, reviewStatus: 'reviewed' });
  });

  it('the partner’s proctoring record shows the outcomes (without the reviewer’s name) and the timeline in order', async () => {
    const res = await h.partner(h.a, 'GET', `${P}/${p.assignmentId}/proctoring`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.flags.map((f: { kind: string }) => f.kind)).toEqual(['no_face', 'no_face', 'camera_stopped', 'copy_paste']);
    const confirmed = body.flags.find((f: { id: string }) => f.id === critical[0]);
    expect(confirmed).toMatchObject({ kind: 'no_face', severity: 'critical', durationSeconds: 25, evidence: { snapshot: false, url: null } });
    expect(confirmed.review).toEqual({ outcome: 'confirmed', note: 'No face for 25 s on the recording.', reviewedAt: expect.any(String) });
    expect(body.flags.find((f: { id: string }) => f.id === warning).review).toBeNull();
    expectError(await h.partner(h.b, 'GET', `${P}/${p.assignmentId}/proctoring`), 404, 'not_found');
  });
});

describe('operator routes', () => {
  it('404 for an unknown assignment; a test without proctoring has mode none and an empty record; the partner read is null', async () => {
    expectError(await h.admin('GET', `${A}/asg_0000000000000000000000/proctoring`), 404, 'not_found');
    expectError(await review('asg_0000000000000000000000', { reviews: [{ flagId: 'flg_x', outcome: 'confirmed', note: 'n' }] }), 404, 'not_found');
    const plain = await startProctored(h, h.a, h.a.testId, 'plain-one');
    const r = (await h.admin('GET', `${A}/${plain.assignmentId}/proctoring`)).json();
    expect(r).toMatchObject({ mode: 'none', rules: null, flags: [], snapshots: [], recording: { segmentCount: 0, segments: [] } });
    expect(await partnerRead(plain.assignmentId)).toBeNull();
  });

  it('an attempt without critical flags is not_required and sends no integrity.reviewed', async () => {
    const calm = await startProctored(h, h.a, testId, 'calm-student');
    flagsOf(await calm.heartbeat([signal('cp-calm-01', 'copy_paste', 0, clock.now(), false)]));
    expect((await calm.student.submit(calm.assignmentId)).statusCode).toBe(303);
    expect(await partnerRead(calm.assignmentId)).toEqual({ mode: 'live_ai', flags: { critical: 0, warning: 1, info: 0 }, reviewStatus: 'not_required' });
    await dispatcher.drain();
    expect(integrityAt(calm.assignmentId)).toHaveLength(0);
  });
});
