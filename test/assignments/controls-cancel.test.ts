import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/expect-error.js';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { ALL_TYPES_TEST, Student, assign, createPublishedTest, readAssignment } from '../helpers/student.js';

const START = new Date('2031-05-01T08:00:00.000Z');
const clock = manualClock(START);
const MINUTE = 60_000;
const P = '/api/partner/v1';
let h: Harness;
let hybridTestId: string;

beforeAll(async () => {
  h = await createHarness({ clock });
  hybridTestId = await createPublishedTest(h, h.a, ALL_TYPES_TEST);
});
afterAll(() => h.close());

const cancel = (id: string, tenant = h.a) => h.partner(tenant, 'POST', `${P}/assignments/${id}/cancel`);

async function events(assignmentId: string) {
  const { rows } = await h.pool.query('SELECT type, sequence, data FROM events WHERE assignment_id = $1 ORDER BY sequence', [assignmentId]);
  return rows as Array<{ type: string; sequence: number; data: Record<string, any> }>;
}
async function jobs(assignmentId: string): Promise<string[]> {
  const { rows } = await h.pool.query("SELECT kind FROM jobs WHERE payload->>'assignmentId' = $1 ORDER BY kind", [assignmentId]);
  return rows.map((r) => r.kind);
}
async function running(externalUserId: string, overrides: Record<string, unknown> = {}) {
  const a = await assign(h, h.a, { externalUserId, ...overrides });
  const s = new Student(h);
  await s.start(a.startUrl);
  await s.page(a.assignmentId);
  return { ...a, s };
}

describe('cancel an assigned assignment', () => {
  it('→ cancelled with assignment.cancelled; the expiry job goes; the start link shows the withdrawn page', async () => {
    clock.set(START);
    const a = await assign(h, h.a, { externalUserId: 'c-1', dueAt: new Date(START.getTime() + 60 * MINUTE).toISOString(), metadata: { course: 'x' } });
    expect(await jobs(a.assignmentId)).toEqual(['assignment.expire']);
    const res = await cancel(a.assignmentId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'cancelled', cancelledAt: START.toISOString(), startUrl: null, startUrlExpiresAt: null });
    expect(await jobs(a.assignmentId)).toEqual([]);
    expect((await events(a.assignmentId)).map((e) => [e.type, e.sequence, e.data.status, e.data.metadata])).toEqual([
      ['assignment.cancelled', 1, 'cancelled', { course: 'x' }],
    ]);

    const opened = await new Student(h).open(a.startUrl);
    expect(opened.statusCode).toBe(410);
    expect(opened.headers['set-cookie']).toBeUndefined();
    expect(opened.body).toContain('This test has been withdrawn');
    expect(opened.body).toMatch(/href="https:\/\/alpha-college\.example\/return\?[^"]*status=cancelled[^"]*">Return to Alpha College</);
  });

  it('twice: 200 with the same assignment, and no second event', async () => {
    const a = await assign(h, h.a, { externalUserId: 'c-2' });
    const first = await cancel(a.assignmentId);
    clock.advance(MINUTE);
    const second = await cancel(a.assignmentId);
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual(first.json());
    expect((await events(a.assignmentId)).map((e) => e.type)).toEqual(['assignment.cancelled']);
  });

  it('an intro page left open: Begin afterwards starts nothing and shows the withdrawal', async () => {
    const a = await assign(h, h.a, { externalUserId: 'c-3' });
    const s = new Student(h);
    await s.open(a.startUrl);
    await s.page(a.assignmentId);
    await cancel(a.assignmentId);
    expect((await s.begin(a.assignmentId)).statusCode).toBe(303);
    const page = await s.page(a.assignmentId);
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain('This test has been withdrawn');
    expect((await events(a.assignmentId)).map((e) => e.type)).toEqual(['assignment.cancelled']);
    expect((await h.pool.query('SELECT count(*)::int AS n FROM attempts WHERE assignment_id = $1', [a.assignmentId])).rows[0].n).toBe(0);
  });
});

describe('cancel while the student is mid-test', () => {
  it('the next save is refused cleanly, the saved answers are kept for the institution, the page and the link show the withdrawal', async () => {
    clock.set(START);
    const a = await running('c-mid-1', { testId: hybridTestId });
    expect((await a.s.save(a.assignmentId, [{ questionId: 'es', value: 'My morning was quiet.', version: 1 }])).statusCode).toBe(200);
    expect(await jobs(a.assignmentId)).toEqual(['attempt.auto_submit']);

    clock.advance(MINUTE);
    const res = await cancel(a.assignmentId);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'cancelled', submittedAt: null, completedAt: null });
    expect(await jobs(a.assignmentId)).toEqual([]);

    // The page's next save: 409 invalid_state in the envelope, nothing stored.
    const save = await a.s.save(a.assignmentId, [{ questionId: 'es', value: 'Changed after the cancellation.', version: 2 }]);
    const err = expectError(save, 409, 'invalid_state');
    expect(err.error.message).toMatch(/withdrawn/);
    // The status poll says so; the page shows the withdrawal with the return button.
    expect((await a.s.get(`/a/${a.assignmentId}/status`)).json()).toMatchObject({ status: 'cancelled', deadline: null });
    const page = await a.s.page(a.assignmentId);
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain('This test has been withdrawn');
    expect(page.body).toContain('Return to Alpha College');
    // Pressing Submit on the stale page changes nothing.
    expect((await a.s.submit(a.assignmentId)).statusCode).toBe(303);
    expect((await readAssignment(h, h.a, a.assignmentId)).status).toBe('cancelled');

    // The institution reads the answer that was saved before, and only that.
    const marking = (await h.admin('GET', `/api/admin/v1/assignments/${a.assignmentId}`)).json();
    expect(marking.status).toBe('cancelled');
    expect(marking.items.find((i: { questionId: string }) => i.questionId === 'es').answer).toBe('My morning was quiet.');
    const attempt = (await h.pool.query('SELECT submitted_at, submitted_by FROM attempts WHERE assignment_id = $1', [a.assignmentId])).rows[0];
    expect(attempt).toEqual({ submitted_at: clock.now(), submitted_by: 'cancelled' });

    // The start link is dead.
    const opened = await new Student(h).open(a.startUrl);
    expect(opened.statusCode).toBe(410);
    expect(opened.body).toContain('This test has been withdrawn');

    // Long after the old deadline nothing submits it.
    clock.advance(60 * MINUTE);
    await h.runJobs();
    expect((await readAssignment(h, h.a, a.assignmentId)).status).toBe('cancelled');
    expect((await events(a.assignmentId)).map((e) => [e.type, e.sequence])).toEqual([
      ['exam.started', 1],
      ['assignment.cancelled', 2],
    ]);
  });

  it('cancelling a submitted, marking, completed or expired assignment: 409 invalid_state, nothing changed', async () => {
    clock.set(START);
    const completed = await running('c-409-1');
    await completed.s.submit(completed.assignmentId);
    const marking = await running('c-409-2', { testId: hybridTestId });
    await marking.s.submit(marking.assignmentId);
    const expired = await assign(h, h.a, { externalUserId: 'c-409-3', dueAt: new Date(START.getTime() + MINUTE).toISOString() });
    clock.advance(MINUTE);
    for (const [id, status] of [
      [completed.assignmentId, 'completed'],
      [marking.assignmentId, 'marking'],
      [expired.assignmentId, 'expired'],
    ] as const) {
      const res = await cancel(id);
      expectError(res, 409, 'invalid_state');
      expect((await readAssignment(h, h.a, id)).status).toBe(status);
      expect((await events(id)).map((e) => e.type)).not.toContain('assignment.cancelled');
    }
  });

  it('another institution’s key, or an unknown id: 404 alike, nothing changed', async () => {
    const a = await assign(h, h.a, { externalUserId: 'c-404' });
    const foreign = await cancel(a.assignmentId, h.b);
    expectError(foreign, 404, 'not_found');
    expect(foreign.json().error.message).toBe((await cancel('asg_0000000000000000000000', h.b)).json().error.message);
    expect((await readAssignment(h, h.a, a.assignmentId)).status).toBe('assigned');
    expect(await events(a.assignmentId)).toEqual([]);
  });

  it('the operator API cancels any institution’s assignment', async () => {
    const a = await assign(h, h.b, { externalUserId: 'c-op' });
    const res = await h.admin('POST', `/api/admin/v1/assignments/${a.assignmentId}/cancel`);
    expect(res.statusCode).toBe(200);
    expect((await readAssignment(h, h.b, a.assignmentId)).status).toBe('cancelled');
  });
});

describe('races', () => {
  it('cancel against submit, many times: exactly one wins, with consistent events and sequences', async () => {
    clock.set(START);
    const outcomes = { cancelled: 0, completed: 0 };
    for (let i = 0; i < 30; i++) {
      const a = await running(`race-${i}`);
      // Alternate which request is sent first.
      let c, s;
      if (i % 2 === 0) [c, s] = await Promise.all([cancel(a.assignmentId), a.s.submit(a.assignmentId)]);
      else [s, c] = await Promise.all([a.s.submit(a.assignmentId), cancel(a.assignmentId)]);
      expect(s.statusCode).toBe(303);
      const read = await readAssignment(h, h.a, a.assignmentId);
      const evs = await events(a.assignmentId);
      expect(evs.map((e) => e.sequence)).toEqual(evs.map((_, k) => k + 1));
      if (read.status === 'cancelled') {
        outcomes.cancelled++;
        expect(c.statusCode).toBe(200);
        expect(evs.map((e) => e.type)).toEqual(['exam.started', 'assignment.cancelled']);
        expect(read.submittedAt).toBeNull();
        expect(read.result.score).toBeNull();
      } else {
        outcomes.completed++;
        expect(read.status).toBe('completed');
        expectError(c, 409, 'invalid_state');
        expect(evs.map((e) => e.type)).toEqual(['exam.started', 'exam.completed']);
      }
    }
    expect(outcomes.cancelled + outcomes.completed).toBe(30);
  });

  it('sequence stays strictly increasing per assignment across concurrent updates, a cancel and a submit', async () => {
    clock.set(START);
    for (let i = 0; i < 10; i++) {
      const a = await running(`seq-${i}`);
      const patches = Array.from({ length: 5 }, (_, k) =>
        h.partner(h.a, 'PATCH', `${P}/assignments/${a.assignmentId}`, { accommodations: { extraTimeMinutes: 10 * i + k + 1 } }),
      );
      const results = await Promise.all([...patches, cancel(a.assignmentId), a.s.submit(a.assignmentId)]);
      for (const r of results.slice(0, 5)) expect([200, 409]).toContain(r.statusCode);
      const evs = await events(a.assignmentId);
      expect(evs.map((e) => e.sequence)).toEqual(evs.map((_, k) => k + 1));
      const types = evs.map((e) => e.type);
      expect(types[0]).toBe('exam.started');
      // One ending, and it is the last event: nothing is appended after the assignment is closed.
      const endings = types.filter((t) => t === 'assignment.cancelled' || t === 'exam.completed');
      expect(endings).toHaveLength(1);
      expect(types.at(-1)).toBe(endings[0]);
      expect(types.filter((t) => t === 'assignment.updated').length).toBe(results.slice(0, 5).filter((r) => r.statusCode === 200).length);
      const status = (await readAssignment(h, h.a, a.assignmentId)).status;
      expect(status).toBe(endings[0] === 'assignment.cancelled' ? 'cancelled' : 'completed');
      // The events API gives the partner the same types and sequences (the clock stands still here, so sort).
      const listed = (await h.partner(h.a, 'GET', `${P}/events?assignmentId=${a.assignmentId}&limit=100`)).json().data as Array<{ type: string; data: { sequence: number } }>;
      expect(listed.map((e) => [e.data.sequence, e.type]).sort((x, y) => Number(x[0]) - Number(y[0]))).toEqual(evs.map((e) => [e.sequence, e.type]));
    }
  });
});
