import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { effectiveProctoringRelaxations } from '../../src/modules/assignments/accommodations.js';
import { detailFields, expectError } from '../helpers/expect-error.js';
import { assignmentBody, createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { Student, assign, readAssignment } from '../helpers/student.js';

// The harness tenants' test is "Arithmetic": 20 minutes, auto-marked, immediate. Its first question is q0
// (single choice, "b" correct); question ids come from the operator's marking view.
const START = new Date('2031-05-01T08:00:00.000Z');
const clock = manualClock(START);
const MINUTE = 60_000;
const GRACE = 30_000;
const P = '/api/partner/v1';
let h: Harness;

beforeAll(async () => {
  h = await createHarness({ clock });
});
afterAll(() => h.close());

const patch = (id: string, body: unknown, headers: Record<string, string> = {}, tenant = h.a) =>
  h.partner(tenant, 'PATCH', `${P}/assignments/${id}`, body, headers);

async function events(assignmentId: string) {
  const { rows } = await h.pool.query('SELECT type, sequence, data FROM events WHERE assignment_id = $1 ORDER BY sequence', [assignmentId]);
  return rows as Array<{ type: string; sequence: number; data: Record<string, any> }>;
}
async function attemptRow(assignmentId: string) {
  const { rows } = await h.pool.query('SELECT deadline_at, submitted_at, submitted_by FROM attempts WHERE assignment_id = $1', [assignmentId]);
  return rows[0] as { deadline_at: Date; submitted_at: Date | null; submitted_by: string | null };
}
async function jobRunAt(uniqueKey: string): Promise<Date | null> {
  const { rows } = await h.pool.query('SELECT run_at FROM jobs WHERE unique_key = $1', [uniqueKey]);
  return rows[0]?.run_at ?? null;
}
async function firstQuestion(assignmentId: string): Promise<string> {
  return (await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}`)).json().items[0].questionId;
}
/** A started attempt of the 20-minute test, begun at the clock's now. */
async function running(externalUserId: string, overrides: Record<string, unknown> = {}) {
  const a = await assign(h, h.a, { externalUserId, ...overrides });
  const s = new Student(h);
  await s.start(a.startUrl);
  await s.page(a.assignmentId);
  return { ...a, s, startedAt: clock.now() };
}

describe('accommodations at creation', () => {
  it('are echoed by the read and kept out of nothing: extra time, proctoring relaxations when allowed', async () => {
    const a = await assign(h, h.a, { externalUserId: 'create-1', accommodations: { extraTimePercent: 25 } });
    expect((await readAssignment(h, h.a, a.assignmentId)).accommodations).toEqual({ extraTimePercent: 25 });
    const none = await assign(h, h.a, { externalUserId: 'create-2' });
    expect((await readAssignment(h, h.a, none.assignmentId)).accommodations).toBeNull();
    const empty = await assign(h, h.a, { externalUserId: 'create-3', accommodations: {} });
    expect((await readAssignment(h, h.a, empty.assignmentId)).accommodations).toBeNull();
  });

  it('both kinds of extra time: 400 naming both fields, nothing created', async () => {
    const before = await h.pool.query('SELECT count(*)::int AS n FROM assignments');
    const res = await h.partner(h.a, 'POST', `${P}/assignments`, assignmentBody(h.a, { accommodations: { extraTimePercent: 10, extraTimeMinutes: 5 } }));
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res).sort()).toEqual(['accommodations.extraTimeMinutes', 'accommodations.extraTimePercent']);
    expect((await h.pool.query('SELECT count(*)::int AS n FROM assignments')).rows[0].n).toBe(before.rows[0].n);
  });

  it('out-of-range values and unknown fields: 400', async () => {
    for (const accommodations of [{ extraTimePercent: 401 }, { extraTimeMinutes: 1441 }, { extraTimePercent: -1 }, { extraTimeMinutes: 1.5 }, { extraTime: 5 }, { proctoring: { webcam: false } }]) {
      const res = await h.partner(h.a, 'POST', `${P}/assignments`, assignmentBody(h.a, { accommodations }));
      expectError(res, 400, 'invalid_request');
    }
  });

  it('proctoring relaxations need the institution setting (422 without it), and count in effectiveProctoringRelaxations', async () => {
    const relaxed = { proctoring: { fullscreenRequired: false, copyPasteAllowed: true } };
    const refused = await h.partner(h.a, 'POST', `${P}/assignments`, assignmentBody(h.a, { externalUserId: 'relax-1', accommodations: relaxed }));
    expectError(refused, 422, 'proctoring_relaxation_not_allowed');
    expect(detailFields(refused)).toEqual(['accommodations.proctoring']);
    // Strict values are no relaxation.
    await assign(h, h.a, { externalUserId: 'relax-2', accommodations: { proctoring: { fullscreenRequired: true } } });

    expect((await h.admin('PATCH', `/api/admin/v1/institutions/${h.a.institutionId}/settings`, { allowProctoringRelaxations: true })).json()).toEqual({
      allowProctoringRelaxations: true,
      reportShowsQuestions: false,
    });
    const a = await assign(h, h.a, { externalUserId: 'relax-3', accommodations: relaxed });
    const read = await readAssignment(h, h.a, a.assignmentId);
    expect(read.accommodations).toEqual(relaxed);
    expect(effectiveProctoringRelaxations(read)).toEqual({ fullscreenRequired: false, copyPasteAllowed: true });
    expect(effectiveProctoringRelaxations({ accommodations: null })).toEqual({ fullscreenRequired: true, copyPasteAllowed: false });
    // Institution B was not allowed anything.
    expect((await h.admin('GET', `/api/admin/v1/institutions/${h.b.institutionId}/settings`)).json()).toEqual({ allowProctoringRelaxations: false, reportShowsQuestions: false });
    expectError(await h.partner(h.b, 'POST', `${P}/assignments`, assignmentBody(h.b, { accommodations: relaxed })), 422, 'proctoring_relaxation_not_allowed');
    await h.admin('PATCH', `/api/admin/v1/institutions/${h.a.institutionId}/settings`, { allowProctoringRelaxations: false });
  });

  it('are part of the idempotency fingerprint', async () => {
    const key = { 'idempotency-key': 'create-acc-1' };
    const body = assignmentBody(h.a, { externalUserId: 'fp-1', accommodations: { extraTimeMinutes: 10 } });
    expect((await h.partner(h.a, 'POST', `${P}/assignments`, body, key)).statusCode).toBe(201);
    const replay = await h.partner(h.a, 'POST', `${P}/assignments`, body, key);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const other = await h.partner(h.a, 'POST', `${P}/assignments`, { ...body, accommodations: { extraTimeMinutes: 11 } }, key);
    expectError(other, 409, 'idempotency_key_reused');
  });

  it('extra time granted before the start counts from Begin, and the intro page says the time allowed', async () => {
    const a = await assign(h, h.a, { externalUserId: 'pre-1', accommodations: { extraTimePercent: 50 } });
    const s = new Student(h);
    await s.open(a.startUrl);
    const intro = await s.page(a.assignmentId);
    expect(intro.body).toContain('30 minutes');
    await s.begin(a.assignmentId);
    expect((await attemptRow(a.assignmentId)).deadline_at.getTime()).toBe(clock.now().getTime() + 30 * MINUTE);
  });
});

describe('PATCH accommodations while the student is mid-test', () => {
  it('moves the deadline and the auto-submit together: not submitted at the old deadline, submitted after the new one', async () => {
    clock.set(START);
    const a = await running('mid-1');
    const oldDeadline = new Date(a.startedAt.getTime() + 20 * MINUTE);
    expect((await attemptRow(a.assignmentId)).deadline_at).toEqual(oldDeadline);
    expect(await jobRunAt(`auto-submit:${a.assignmentId}`)).toEqual(new Date(oldDeadline.getTime() + GRACE));

    clock.advance(5 * MINUTE);
    const res = await patch(a.assignmentId, { accommodations: { extraTimeMinutes: 15 } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'started', accommodations: { extraTimeMinutes: 15 } });
    const newDeadline = new Date(oldDeadline.getTime() + 15 * MINUTE);
    expect((await attemptRow(a.assignmentId)).deadline_at).toEqual(newDeadline);
    expect(await jobRunAt(`auto-submit:${a.assignmentId}`)).toEqual(new Date(newDeadline.getTime() + GRACE));
    const updated = (await events(a.assignmentId)).at(-1)!;
    expect(updated.type).toBe('assignment.updated');
    expect(updated.data.changes).toEqual({
      accommodations: { from: null, to: { extraTimeMinutes: 15 } },
      deadlineAt: { from: oldDeadline.toISOString(), to: newDeadline.toISOString() },
    });
    expect(updated.data).toMatchObject({ status: 'started', partnerAssignmentId: a.assignmentId, sequence: 2 });

    // The page's status poll sees the new deadline.
    const status = await a.s.get(`/a/${a.assignmentId}/status`);
    expect(status.json()).toEqual({ status: 'started', deadline: newDeadline.toISOString(), serverNow: clock.now().toISOString() });

    // Past the old deadline and its grace: the job does not submit, and saves are still taken.
    clock.set(new Date(oldDeadline.getTime() + GRACE + 1000));
    await h.runJobs();
    expect((await readAssignment(h, h.a, a.assignmentId)).status).toBe('started');
    const q = await firstQuestion(a.assignmentId);
    const saved = await a.s.save(a.assignmentId, [{ questionId: q, value: 'b', version: 1 }]);
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await a.s.page(a.assignmentId)).body).toContain('id="submit-form"');

    // After the new deadline and its grace the server submits with the saved answer.
    clock.set(new Date(newDeadline.getTime() + GRACE));
    await h.runJobs();
    const done = await readAssignment(h, h.a, a.assignmentId);
    expect(done.status).toBe('completed');
    expect(done.result.score.points).toBe(1);
    expect((await attemptRow(a.assignmentId)).submitted_by).toBe('deadline');
    expect((await events(a.assignmentId)).map((e) => [e.type, e.sequence])).toEqual([
      ['exam.started', 1],
      ['assignment.updated', 2],
      ['exam.completed', 3],
    ]);
  });

  it('a percentage counts on the test duration; less extra time never ends the attempt before now', async () => {
    clock.set(START);
    const a = await running('mid-2', { accommodations: { extraTimePercent: 100 } });
    expect((await attemptRow(a.assignmentId)).deadline_at.getTime()).toBe(a.startedAt.getTime() + 40 * MINUTE);
    expect((await patch(a.assignmentId, { accommodations: { extraTimePercent: 50 } })).statusCode).toBe(200);
    expect((await attemptRow(a.assignmentId)).deadline_at.getTime()).toBe(a.startedAt.getTime() + 30 * MINUTE);
    clock.advance(25 * MINUTE);
    expect((await patch(a.assignmentId, { accommodations: null })).statusCode).toBe(200);
    // 20 minutes would be in the past: the deadline is now.
    expect((await attemptRow(a.assignmentId)).deadline_at).toEqual(clock.now());
    const last = (await events(a.assignmentId)).at(-1)!;
    expect(last.data.changes.accommodations).toEqual({ from: { extraTimePercent: 50 }, to: null });
    expect(last.data.changes.deadlineAt.to).toBe(clock.now().toISOString());
  });

  it('the same accommodations again change nothing and emit nothing', async () => {
    clock.set(START);
    const a = await running('mid-3', { accommodations: { extraTimeMinutes: 5 } });
    const before = await events(a.assignmentId);
    const res = await patch(a.assignmentId, { accommodations: { extraTimeMinutes: 5 } });
    expect(res.statusCode).toBe(200);
    expect(await events(a.assignmentId)).toEqual(before);
  });
});

describe('PATCH racing Begin', () => {
  it('extra time granted while the student presses Begin always counts, whichever commits first', async () => {
    clock.set(START);
    for (let i = 0; i < 12; i++) {
      const a = await assign(h, h.a, { externalUserId: `race-begin-${i}` });
      const s = new Student(h);
      await s.open(a.startUrl);
      await s.page(a.assignmentId);
      const [begun, patched] = await Promise.all([s.begin(a.assignmentId), patch(a.assignmentId, { accommodations: { extraTimeMinutes: 10 } })]);
      expect(begun.statusCode).toBe(303);
      expect(patched.statusCode, patched.body).toBe(200);
      const attempt = await attemptRow(a.assignmentId);
      expect(attempt.deadline_at.getTime()).toBe(START.getTime() + 30 * MINUTE);
      expect(await jobRunAt(`auto-submit:${a.assignmentId}`)).toEqual(new Date(START.getTime() + 30 * MINUTE + GRACE));
    }
  });
});

describe('PATCH dueAt', () => {
  it('moves the expiry: not expired at the old dueAt, expired at the new one; the start link expiry follows', async () => {
    clock.set(START);
    const oldDue = new Date(START.getTime() + 60 * MINUTE);
    const newDue = new Date(START.getTime() + 120 * MINUTE);
    const a = await assign(h, h.a, { externalUserId: 'due-1', dueAt: oldDue.toISOString() });
    expect(a.startUrlExpiresAt).toBe(oldDue.toISOString());

    const res = await patch(a.assignmentId, { dueAt: newDue.toISOString() });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ dueAt: newDue.toISOString(), startUrlExpiresAt: newDue.toISOString(), status: 'assigned' });
    expect(await jobRunAt(`expire:${a.assignmentId}`)).toEqual(newDue);
    expect((await events(a.assignmentId)).map((e) => [e.type, e.data.changes])).toEqual([
      ['assignment.updated', { dueAt: { from: oldDue.toISOString(), to: newDue.toISOString() } }],
    ]);

    clock.set(new Date(oldDue.getTime() + 1000));
    await h.runJobs();
    expect((await h.pool.query('SELECT status FROM assignments WHERE id = $1', [a.assignmentId])).rows[0].status).toBe('assigned');
    expect((await readAssignment(h, h.a, a.assignmentId)).status).toBe('assigned');
    // The fresh link still opens.
    const s = new Student(h);
    expect((await s.open(res.json().startUrl)).statusCode).toBe(303);

    clock.set(newDue);
    await h.runJobs();
    expect((await h.pool.query('SELECT status FROM assignments WHERE id = $1', [a.assignmentId])).rows[0].status).toBe('expired');
    expect((await events(a.assignmentId)).map((e) => [e.type, e.sequence])).toEqual([
      ['assignment.updated', 1],
      ['assignment.expired', 2],
    ]);
  });

  it('an earlier dueAt expires earlier; null removes the due date and its expiry job', async () => {
    clock.set(START);
    const a = await assign(h, h.a, { externalUserId: 'due-2', dueAt: new Date(START.getTime() + 120 * MINUTE).toISOString() });
    const earlier = new Date(START.getTime() + 30 * MINUTE);
    expect((await patch(a.assignmentId, { dueAt: earlier.toISOString() })).statusCode).toBe(200);
    clock.set(earlier);
    await h.runJobs();
    expect((await readAssignment(h, h.a, a.assignmentId)).status).toBe('expired');

    clock.set(START);
    const b = await assign(h, h.a, { externalUserId: 'due-3', dueAt: new Date(START.getTime() + 30 * MINUTE).toISOString() });
    const cleared = await patch(b.assignmentId, { dueAt: null });
    expect(cleared.json()).toMatchObject({ dueAt: null, status: 'assigned' });
    expect(await jobRunAt(`expire:${b.assignmentId}`)).toBeNull();
    clock.advance(24 * 60 * MINUTE);
    expect((await readAssignment(h, h.a, b.assignmentId)).status).toBe('assigned');
  });

  it('a dueAt in the past or now: 422 due_at_in_past, nothing changed', async () => {
    clock.set(START);
    const due = new Date(START.getTime() + 60 * MINUTE).toISOString();
    const a = await assign(h, h.a, { externalUserId: 'due-4', dueAt: due });
    for (const dueAt of [START.toISOString(), new Date(START.getTime() - 1).toISOString()]) {
      const res = await patch(a.assignmentId, { dueAt });
      expectError(res, 422, 'due_at_in_past');
      expect(detailFields(res)).toEqual(['dueAt']);
    }
    expect((await readAssignment(h, h.a, a.assignmentId)).dueAt).toBe(due);
    expect(await events(a.assignmentId)).toEqual([]);
  });
});

describe('PATCH refusals', () => {
  it('409 invalid_state once submitted, completed, expired or cancelled; nothing changed', async () => {
    clock.set(START);
    const done = await running('refuse-1');
    await done.s.submit(done.assignmentId);
    const expired = await assign(h, h.a, { externalUserId: 'refuse-2', dueAt: new Date(START.getTime() + MINUTE).toISOString() });
    const cancelled = await assign(h, h.a, { externalUserId: 'refuse-3' });
    expect((await h.partner(h.a, 'POST', `${P}/assignments/${cancelled.assignmentId}/cancel`)).statusCode).toBe(200);
    clock.advance(2 * MINUTE);
    // Past its dueAt the assignment is expired by the first read (or by the PATCH itself, before refusing).
    expect((await readAssignment(h, h.a, expired.assignmentId)).status).toBe('expired');

    for (const [id, status] of [
      [done.assignmentId, 'completed'],
      [expired.assignmentId, 'expired'],
      [cancelled.assignmentId, 'cancelled'],
    ] as const) {
      const before = await events(id);
      const res = await patch(id, { accommodations: { extraTimeMinutes: 10 } });
      expectError(res, 409, 'invalid_state');
      expectError(await patch(id, { dueAt: new Date(clock.now().getTime() + 60 * MINUTE).toISOString() }), 409, 'invalid_state');
      const read = await readAssignment(h, h.a, id);
      expect(read.status).toBe(status);
      expect(read.accommodations).toBeNull();
      expect(await events(id)).toEqual(before);
    }
  });

  it('an assigned assignment past its dueAt is expired, even before any read: 409 and assignment.expired', async () => {
    clock.set(START);
    const a = await assign(h, h.a, { externalUserId: 'refuse-4', dueAt: new Date(START.getTime() + MINUTE).toISOString() });
    clock.advance(MINUTE);
    expectError(await patch(a.assignmentId, { dueAt: new Date(clock.now().getTime() + 60 * MINUTE).toISOString() }), 409, 'invalid_state');
    expect((await events(a.assignmentId)).map((e) => e.type)).toEqual(['assignment.expired']);
    expect((await readAssignment(h, h.a, a.assignmentId)).status).toBe('expired');
  });

  it('bad bodies: the error envelope, and nothing changed', async () => {
    clock.set(START);
    const a = await running('bad-1', { accommodations: { extraTimeMinutes: 5 } });
    const before = { read: await readAssignment(h, h.a, a.assignmentId), events: await events(a.assignmentId), attempt: await attemptRow(a.assignmentId) };
    const cases: Array<[unknown, number, string]> = [
      [{}, 400, 'invalid_request'],
      [{ status: 'completed' }, 400, 'invalid_request'],
      [{ dueAt: 'tomorrow' }, 400, 'invalid_request'],
      [{ accommodations: { extraTimePercent: 10, extraTimeMinutes: 10 } }, 400, 'invalid_request'],
      [{ accommodations: { extraTimePercent: 500 } }, 400, 'invalid_request'],
      [{ accommodations: { proctoring: { fullscreenRequired: false } } }, 422, 'proctoring_relaxation_not_allowed'],
      [[], 400, 'invalid_request'],
      ['{"accommodations":', 400, 'invalid_request'],
    ];
    for (const [body, status, code] of cases) expectError(await patch(a.assignmentId, body), status, code);
    const noType = await h.app.inject({
      method: 'PATCH',
      url: `${P}/assignments/${a.assignmentId}`,
      headers: { authorization: `Bearer ${h.a.apiKey}`, 'content-type': 'text/plain' },
      payload: '{"accommodations":null}',
    });
    expectError(noType, 415, 'unsupported_media_type');
    expect(await readAssignment(h, h.a, a.assignmentId)).toEqual(before.read);
    expect(await events(a.assignmentId)).toEqual(before.events);
    expect(await attemptRow(a.assignmentId)).toEqual(before.attempt);
  });

  it('an unknown id, or another institution’s: 404 alike', async () => {
    const a = await assign(h, h.a, { externalUserId: 'foreign-1' });
    const foreign = await patch(a.assignmentId, { accommodations: { extraTimeMinutes: 5 } }, {}, h.b);
    const unknown = await patch('asg_0000000000000000000000', { accommodations: { extraTimeMinutes: 5 } }, {}, h.b);
    expectError(foreign, 404, 'not_found');
    expect(foreign.json().error.message).toBe(unknown.json().error.message);
    expect((await readAssignment(h, h.a, a.assignmentId)).accommodations).toBeNull();
  });
});
