import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueJob } from '../../src/platform/jobs.js';
import { interruptionSweepJob, SWEEP_KEY } from '../../src/modules/proctoring/proctoring-jobs.js';
import { manualClock, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { registerEndpoint, openWebhookRig, type Dispatcher, type WebhookRig } from '../helpers/webhook-setup.js';
import type { Receiver } from '../helpers/webhook-receiver.js';
import { assign, createPublishedTest, Student } from '../helpers/student.js';
import { flagsOf, lastHeartbeatAt, Proctored, proctoredTest, signal, startProctored } from '../helpers/proctoring.js';

/**
 * Heartbeat → flags → severity → violation.detected (verified at a real
 * webhook receiver, exactly once per critical flag), escalation, the n-th
 * left_test, the server's own proctoring_interrupted after the timeout (a
 * manual clock), and who may report at all.
 */
const clock = manualClock(new Date());
let rig: WebhookRig;
let h: Harness;
let rx: Receiver;
let dispatcher: Dispatcher;
let liveTestId: string;
let recordTestId: string;
const HOOK = '/proctoring';

beforeAll(async () => {
  rig = await openWebhookRig({ clock, start: false });
  ({ h, rx, dispatcher } = rig);
  await registerEndpoint(h, h.a, rx, HOOK, { eventTypes: ['violation.detected', 'integrity.reviewed'] });
  liveTestId = await createPublishedTest(h, h.a, proctoredTest('live_ai'));
  recordTestId = await createPublishedTest(h, h.a, proctoredTest('record', { heartbeatTimeoutSeconds: 30 }));
});
afterAll(() => rig.close());

const ago = (s: number) => new Date(clock.now().getTime() - s * 1000);
const violationsAt = (assignmentId: string) =>
  rx.received.filter((r) => r.path === HOOK && r.json.type === 'violation.detected' && r.json.data.partnerAssignmentId === assignmentId);
const storedViolations = async (assignmentId: string) =>
  (await h.pool.query(`SELECT data FROM events WHERE assignment_id = $1 AND type = 'violation.detected' ORDER BY sequence`, [assignmentId])).rows.map(
    (r) => r.data,
  );

describe('heartbeat → flags → violation.detected', () => {
  let p: Proctored;

  it('a growing no_face signal escalates info → warning → critical and sends violation.detected once, signed, with the documented payload', async () => {
    p = await startProctored(h, h.a, liveTestId, 'face-student');
    clock.advance(5_000);
    const started = ago(2);
    expect(flagsOf(await p.heartbeat([signal('nf-000001', 'no_face', 2, started)]))).toEqual([
      { signalId: 'nf-000001', flagId: expect.stringMatching(/^flg_/), severity: 'info', needsEvidence: false },
    ]);
    const [warning] = flagsOf(await p.heartbeat([signal('nf-000001', 'no_face', 6, started)]));
    expect(warning!.severity).toBe('warning');
    const [critical] = flagsOf(await p.heartbeat([signal('nf-000001', 'no_face', 11, started)]));
    expect(critical).toEqual({ signalId: 'nf-000001', flagId: warning!.flagId, severity: 'critical', needsEvidence: true });
    // The signal goes on, is reported again (also with a smaller, late duration), then ends: still one flag, one event.
    flagsOf(await p.heartbeat([signal('nf-000001', 'no_face', 16, started)]));
    const [late] = flagsOf(await p.heartbeat([signal('nf-000001', 'no_face', 3, started)]));
    expect(late!.severity).toBe('critical');
    flagsOf(await p.heartbeat([signal('nf-000001', 'no_face', 18, started, false)]));

    await dispatcher.drain();
    const received = violationsAt(p.assignmentId);
    expect(received).toHaveLength(1);
    expect(received[0]!.verifiedWith).toEqual([true]);
    expect(received[0]!.json.data).toEqual({
      partnerAssignmentId: p.assignmentId,
      externalUserId: 'face-student',
      testId: liveTestId,
      status: 'started',
      metadata: {},
      sequence: 2,
      violation: { id: critical!.flagId, kind: 'no_face', severity: 'critical', startedAt: started.toISOString(), durationSeconds: 11, evidence: { snapshot: false } },
    });
    expect(await storedViolations(p.assignmentId)).toHaveLength(1);
    const row = (await h.pool.query('SELECT severity, duration_seconds, ongoing FROM proctoring_flags WHERE id = $1', [critical!.flagId])).rows[0];
    expect(row).toEqual({ severity: 'critical', duration_seconds: 18, ongoing: false });
  });

  it('a signal cannot start before its attempt or in the future (a page clock that is off is clamped)', async () => {
    const q = await startProctored(h, h.a, liveTestId);
    const attemptStart = clock.now();
    clock.advance(1_000);
    const [early] = flagsOf(await q.heartbeat([signal('early-0001', 'copy_paste', 0, ago(3600), false)]));
    const [future] = flagsOf(await q.heartbeat([signal('future-001', 'copy_paste', 0, new Date(clock.now().getTime() + 3600_000), false)]));
    const starts = await h.pool.query('SELECT id, started_at FROM proctoring_flags WHERE id = ANY($1)', [[early!.flagId, future!.flagId]]);
    const byId = Object.fromEntries(starts.rows.map((r) => [r.id, r.started_at.getTime()]));
    expect(byId[early!.flagId]).toBe(attemptStart.getTime());
    expect(byId[future!.flagId]).toBe(clock.now().getTime());
  });

  it('once the evidence snapshot is stored, needsEvidence turns false', async () => {
    const [flag] = flagsOf(await p.heartbeat([signal('nf-000001', 'no_face', 18, ago(20), false)]));
    expect(flag!.needsEvidence).toBe(true);
    const snap = await p.snapshot(undefined, { flagId: flag!.flagId, snapshotId: 'evidence-0001' });
    expect(snap.statusCode, snap.body).toBe(201);
    const [after] = flagsOf(await p.heartbeat([signal('nf-000001', 'no_face', 18, ago(20), false)]));
    expect(after!.needsEvidence).toBe(false);
  });

  it('reports in one call are handled together; below-threshold flags are recorded and never sent', async () => {
    const q = await startProctored(h, h.a, liveTestId);
    const flags = flagsOf(
      await q.heartbeat([
        signal('mf-000001', 'multiple_faces', 1, ago(1)),
        signal('cp-000001', 'copy_paste', 0, ago(3), false),
        signal('fs-000001', 'fullscreen_exit', 40, ago(40), false),
      ]),
    );
    expect(Object.fromEntries(flags.map((f) => [f.signalId, f.severity]))).toEqual({ 'mf-000001': 'info', 'cp-000001': 'warning', 'fs-000001': 'warning' });
    const [mf] = flagsOf(await q.heartbeat([signal('mf-000001', 'multiple_faces', 3.5, ago(4))]));
    expect(mf!.severity).toBe('critical');
    await dispatcher.drain();
    expect(violationsAt(q.assignmentId).map((r) => r.json.data.violation.kind)).toEqual(['multiple_faces']);
  });

  it('camera_stopped is critical at once; the 3rd short left_test is critical, the first two are not', async () => {
    const q = await startProctored(h, h.a, recordTestId);
    const [cam] = flagsOf(await q.heartbeat([signal('cam-00001', 'camera_stopped', 0, ago(0))], { cameraActive: false }));
    expect(cam!.severity).toBe('critical');
    const leaves = [];
    for (let i = 1; i <= 3; i++) {
      const [f] = flagsOf(await q.heartbeat([signal(`left-0000${i}`, 'left_test', 1, ago(60 - i * 10), false)]));
      leaves.push(f!.severity);
    }
    expect(leaves).toEqual(['info', 'info', 'critical']);
    // Ten seconds away at once is critical whatever the count.
    const r = await startProctored(h, h.a, recordTestId);
    expect(flagsOf(await r.heartbeat([signal('left-long1', 'left_test', 10, ago(10), false)]))[0]!.severity).toBe('critical');
    await dispatcher.drain();
    expect(violationsAt(q.assignmentId).map((e) => e.json.data.violation.kind)).toEqual(['camera_stopped', 'left_test']);
  });

  it('face signals are ignored on a record test; a signal id reused with another kind is refused and changes nothing', async () => {
    const q = await startProctored(h, h.a, recordTestId);
    expect(flagsOf(await q.heartbeat([signal('nf-record1', 'no_face', 60, ago(60))]))).toEqual([]);
    flagsOf(await q.heartbeat([signal('sig-000001', 'copy_paste', 0, ago(1), false)]));
    const res = await q.heartbeat([signal('sig-000001', 'left_test', 30, ago(30))]);
    expectError(res, 400, 'invalid_request');
    expect(res.json().error.details[0].field).toBe('signals.0.kind');
    const kinds = await h.pool.query('SELECT kind FROM proctoring_flags WHERE assignment_id = $1', [q.assignmentId]);
    expect(kinds.rows).toEqual([{ kind: 'copy_paste' }]);
  });

  it('bad bodies are refused with the envelope: unknown kind, server-only kind, short id, too many signals', async () => {
    const q = await startProctored(h, h.a, liveTestId);
    for (const bad of [
      [signal('sig-000001', 'tab_switch', 1, ago(1))],
      [signal('sig-000001', 'proctoring_interrupted', 100, ago(100))],
      [signal('short', 'left_test', 1, ago(1))],
      Array.from({ length: 51 }, (_, i) => signal(`many-${String(i).padStart(5, '0')}`, 'copy_paste', 0, ago(1))),
    ]) {
      expectError(await q.heartbeat(bad), 400, 'invalid_request');
    }
  });
});

describe('who may report', () => {
  it('another student’s assignment is 404; no CSRF token is 403; no session is 401; all in the envelope', async () => {
    const mine = await startProctored(h, h.a, liveTestId, 'owner-1');
    const other = await startProctored(h, h.a, liveTestId, 'intruder-1');
    expectError(await other.heartbeat([], { assignmentId: mine.assignmentId }), 404, 'not_found');
    expectError(await other.segment(0, undefined, { assignmentId: mine.assignmentId }), 404, 'not_found');
    expectError(await mine.heartbeat([], { csrf: null }), 403, 'forbidden');
    const anonymous = await h.app.inject({
      method: 'POST',
      url: `/a/${mine.assignmentId}/proctoring/heartbeat`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ signals: [], cameraActive: true, fullscreen: null }),
    });
    expectError(anonymous, 401, 'unauthenticated');
  });

  it('a proctored assignment not begun, a test without proctoring, and a submitted attempt are 409 invalid_state', async () => {
    const a = await assign(h, h.a, { testId: liveTestId, externalUserId: 'not-begun' });
    const s = new Student(h);
    await s.open(a.startUrl);
    await s.page(a.assignmentId);
    const notBegun = await h.app.inject({
      method: 'POST',
      url: `/a/${a.assignmentId}/proctoring/heartbeat`,
      headers: { 'content-type': 'application/json', cookie: s.cookie!, 'x-csrf-token': s.csrf! },
      payload: JSON.stringify({ signals: [], cameraActive: true, fullscreen: true }),
    });
    expectError(notBegun, 409, 'invalid_state');

    const plain = await startProctored(h, h.a, h.a.testId, 'plain-student');
    expectError(await plain.heartbeat([]), 409, 'invalid_state');

    const done = await startProctored(h, h.a, liveTestId, 'done-student');
    expect((await done.student.submit(done.assignmentId)).statusCode).toBe(303);
    expectError(await done.heartbeat([]), 409, 'invalid_state');
    expectError(await done.heartbeat([signal('late-00001', 'left_test', 30, ago(30))]), 409, 'invalid_state');
  });
});

describe('proctoring_interrupted', () => {
  async function sweep() {
    await enqueueJob(h.pool, interruptionSweepJob, {}, { runAt: clock.now(), uniqueKey: SWEEP_KEY });
    await h.runJobs();
  }
  const interruptions = async (assignmentId: string) =>
    (
      await h.pool.query(
        `SELECT id, severity, ongoing, duration_seconds, started_at FROM proctoring_flags WHERE assignment_id = $1 AND kind = 'proctoring_interrupted' ORDER BY started_at`,
        [assignmentId],
      )
    ).rows;

  it('is raised by the server after the test’s timeout (and one heartbeat flush) without a heartbeat, once, critical, and closed by the next heartbeat', async () => {
    const q = await startProctored(h, h.a, recordTestId, 'silent-student'); // heartbeatTimeoutSeconds: 30
    flagsOf(await q.heartbeat([]));
    const lastBeat = clock.now();
    // An idle beat is written by the coalescer's timer (real time); the manual clock leaps ahead of it, so wait for the write
    // a running process would have made long before the sweep (else the late flush ends the flag it finds).
    await expect.poll(async () => (await lastHeartbeatAt(h, q.assignmentId))?.getTime(), { timeout: 10_000, interval: 50 }).toBe(lastBeat.getTime());
    clock.advance(29_000);
    await sweep();
    expect(await interruptions(q.assignmentId)).toEqual([]);
    // Past the timeout but within one heartbeat flush (2 s): the last beat may not be written yet.
    clock.advance(2_000);
    await sweep();
    expect(await interruptions(q.assignmentId)).toEqual([]);
    clock.advance(2_000);
    await sweep();
    clock.advance(20_000);
    await sweep(); // still silent: no second flag for the same silence
    const [open] = await interruptions(q.assignmentId);
    expect(await interruptions(q.assignmentId)).toHaveLength(1);
    expect(open).toMatchObject({ severity: 'critical', ongoing: true, started_at: lastBeat });
    expect(open.duration_seconds).toBeCloseTo(33, 3);

    flagsOf(await q.heartbeat([]));
    const [closed] = await interruptions(q.assignmentId);
    expect(closed).toMatchObject({ id: open.id, ongoing: false });
    expect(closed.duration_seconds).toBeCloseTo(53, 3);

    await dispatcher.drain();
    const sent = violationsAt(q.assignmentId);
    expect(sent.map((e) => e.json.data.violation)).toEqual([
      { id: open.id, kind: 'proctoring_interrupted', severity: 'critical', startedAt: lastBeat.toISOString(), durationSeconds: 33, evidence: { snapshot: false } },
    ]);

    // A later silence is a flag of its own.
    clock.advance(33_000);
    await sweep();
    expect(await interruptions(q.assignmentId)).toHaveLength(2);
    await dispatcher.drain();
    expect(violationsAt(q.assignmentId)).toHaveLength(2);
  });

  it('counts from the start when the page never reported (script blocked), and stops at submission', async () => {
    const blocked = await startProctored(h, h.a, liveTestId, 'blocked-student'); // default 60 s
    const submitted = await startProctored(h, h.a, liveTestId, 'quick-student');
    expect((await submitted.student.submit(submitted.assignmentId)).statusCode).toBe(303);
    clock.advance(63_000);
    await sweep();
    expect(await interruptions(blocked.assignmentId)).toHaveLength(1);
    expect(await interruptions(submitted.assignmentId)).toHaveLength(0);
    const partner = await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${blocked.assignmentId}`);
    expect(partner.json().proctoring).toEqual({ mode: 'live_ai', flags: { critical: 1, warning: 0, info: 0 }, reviewStatus: 'pending' });

    // Silent until the end: the next sweep closes the flag at the submission.
    clock.advance(40_000);
    expect((await blocked.student.submit(blocked.assignmentId)).statusCode).toBe(303);
    await sweep();
    const [closed] = await interruptions(blocked.assignmentId);
    expect(closed.ongoing).toBe(false);
    expect(closed.duration_seconds).toBeCloseTo(103, 3);
  });
});

describe('authoring and the pages’ state', () => {
  it('a test’s proctoringRules are stored resolved, shown to operators, and refused on a test without proctoring', async () => {
    const test = (await h.admin('GET', `/api/admin/v1/tests/${recordTestId}`)).json();
    expect(test.proctoringRules).toEqual({ noFaceSeconds: 10, multipleFacesSeconds: 3, leftTestSeconds: 10, leftTestCount: 3, heartbeatTimeoutSeconds: 30 });
    expect((await h.admin('GET', `/api/admin/v1/tests/${h.a.testId}`)).json().proctoringRules).toBeNull();
    const refused = await h.admin('POST', '/api/admin/v1/tests', { ...proctoredTest('record'), proctoring: 'none', proctoringRules: { noFaceSeconds: 5 } });
    expectError(refused, 400, 'invalid_request');
    expect(refused.json().error.details[0].field).toBe('proctoringRules');
    expectError(await h.admin('POST', '/api/admin/v1/tests', proctoredTest('record', { heartbeatTimeoutSeconds: 5 })), 400, 'invalid_request');
  });

  it('the intro and test pages of a proctored test carry state.proctoring (mode, resolved rules, timings, model base)', async () => {
    const stateOf = (html: string) => JSON.parse(/<script type="application\/json" id="assay-state">([\s\S]*?)<\/script>/.exec(html)![1]!);
    const a = await assign(h, h.a, { testId: recordTestId, externalUserId: 'page-reader' });
    const s = new Student(h);
    await s.open(a.startUrl);
    const intro = stateOf((await s.page(a.assignmentId)).body);
    const expected = {
      mode: 'record',
      rules: { noFaceSeconds: 10, multipleFacesSeconds: 3, leftTestSeconds: 10, leftTestCount: 3, heartbeatTimeoutSeconds: 30 },
      heartbeatMs: 5000,
      segmentMs: 10000,
      snapshotEveryMs: 60000,
      modelBase: '/assets/proctoring/models/',
      retentionDays: 30,
      relaxations: { fullscreenRequired: true, copyPasteAllowed: false }, // no accommodations: the strict defaults
      directUploads: false, // local storage: uploads go through the API
    };
    expect(intro).toMatchObject({ assignmentId: a.assignmentId, csrfToken: s.csrf, proctoring: expected });
    expect(intro.proctoring.nextSeq).toBeUndefined();
    await s.begin(a.assignmentId);
    expect(stateOf((await s.page(a.assignmentId)).body).proctoring).toEqual({ ...expected, nextSeq: 0 });
    // A reloaded page (or another device) continues after the highest segment stored, never reusing a number.
    const p = new Proctored(h, s, a.assignmentId);
    for (const seq of [0, 1, 4]) expect((await p.segment(seq)).statusCode).toBe(201);
    expect(stateOf((await s.page(a.assignmentId)).body).proctoring.nextSeq).toBe(5);
    const plain = await startProctored(h, h.a, h.a.testId, 'plain-page');
    expect(stateOf((await plain.student.page(plain.assignmentId)).body).proctoring).toBeUndefined();
  });
});
