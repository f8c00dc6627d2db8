import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/expect-error.js';
import { assignmentBody, createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { Student, assign, readAssignment } from '../helpers/student.js';

/** PATCH /assignments/{id} with Idempotency-Key, and the operator's PATCH. */
const START = new Date('2031-05-01T08:00:00.000Z');
const clock = manualClock(START);
const MINUTE = 60_000;
const P = '/api/partner/v1';
let h: Harness;

beforeAll(async () => {
  h = await createHarness({ clock });
});
afterAll(() => h.close());

const patch = (id: string, body: unknown, headers: Record<string, string> = {}) => h.partner(h.a, 'PATCH', `${P}/assignments/${id}`, body, headers);

async function events(assignmentId: string) {
  const { rows } = await h.pool.query('SELECT type FROM events WHERE assignment_id = $1 ORDER BY sequence', [assignmentId]);
  return rows as Array<{ type: string }>;
}
async function running(externalUserId: string) {
  const a = await assign(h, h.a, { externalUserId });
  const s = new Student(h);
  await s.start(a.startUrl);
  return { ...a, s, startedAt: clock.now() };
}

describe('PATCH with Idempotency-Key', () => {
  it('replays the same bytes with Idempotent-Replayed, once only in effect; another body is 409', async () => {
    clock.set(START);
    const a = await running('idem-1');
    const body = { accommodations: { extraTimeMinutes: 10 } };
    const key = { 'idempotency-key': 'patch-key-1' };
    const first = await patch(a.assignmentId, body, key);
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    clock.advance(MINUTE);
    // Meanwhile something else changed the assignment: the replay is still the stored answer.
    expect((await patch(a.assignmentId, { accommodations: { extraTimeMinutes: 20 } })).statusCode).toBe(200);
    const replay = await patch(a.assignmentId, { accommodations: { extraTimeMinutes: 10 } }, key);
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    expect((await readAssignment(h, h.a, a.assignmentId)).accommodations).toEqual({ extraTimeMinutes: 20 });
    expect((await events(a.assignmentId)).filter((e) => e.type === 'assignment.updated')).toHaveLength(2);

    expectError(await patch(a.assignmentId, { accommodations: { extraTimeMinutes: 11 } }, key), 409, 'idempotency_key_reused');
    // The same key on another assignment is another request under the same key: refused as well.
    const other = await running('idem-2');
    expectError(await patch(other.assignmentId, body, key), 409, 'idempotency_key_reused');
  });

  it('keys are scoped by route: one key on a creation and on a PATCH are two requests', async () => {
    const key = { 'idempotency-key': 'shared-key-1' };
    const created = await h.partner(h.a, 'POST', `${P}/assignments`, assignmentBody(h.a, { externalUserId: 'idem-3' }), key);
    expect(created.statusCode).toBe(201);
    const updated = await patch(created.json().assignmentId, { accommodations: { extraTimeMinutes: 3 } }, key);
    expect(updated.statusCode).toBe(200);
    expect(updated.headers['idempotent-replayed']).toBeUndefined();
    expect(updated.json().accommodations).toEqual({ extraTimeMinutes: 3 });
  });

  it('a refused PATCH stores nothing: the same key works once the body is fixed', async () => {
    clock.set(START);
    const a = await assign(h, h.a, { externalUserId: 'idem-4' });
    const key = { 'idempotency-key': 'patch-key-fix' };
    expectError(await patch(a.assignmentId, { dueAt: new Date(START.getTime() - MINUTE).toISOString() }, key), 422, 'due_at_in_past');
    const fixed = await patch(a.assignmentId, { dueAt: new Date(START.getTime() + MINUTE).toISOString() }, key);
    expect(fixed.statusCode).toBe(200);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
  });

  it('concurrent requests with one key change the assignment once and all answer the same bytes', async () => {
    clock.set(START);
    const a = await running('idem-5');
    const key = { 'idempotency-key': 'patch-key-race' };
    const all = await Promise.all(Array.from({ length: 6 }, () => patch(a.assignmentId, { accommodations: { extraTimePercent: 25 } }, key)));
    expect(all.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(all.map((r) => r.body)).size).toBe(1);
    expect(all.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(5);
    expect((await events(a.assignmentId)).map((e) => e.type)).toEqual(['exam.started', 'assignment.updated']);
  });
});

describe('the operator API', () => {
  it('changes any institution’s assignment through the same rules', async () => {
    clock.set(START);
    const a = await running('operator-1');
    const res = await h.admin('PATCH', `/api/admin/v1/assignments/${a.assignmentId}`, { accommodations: { extraTimeMinutes: 30 } });
    expect(res.statusCode, res.body).toBe(200);
    const { rows } = await h.pool.query('SELECT deadline_at FROM attempts WHERE assignment_id = $1', [a.assignmentId]);
    expect(rows[0].deadline_at.getTime()).toBe(a.startedAt.getTime() + 50 * MINUTE);
    expectError(await h.admin('PATCH', `/api/admin/v1/assignments/${a.assignmentId}`, {}), 400, 'invalid_request');
    expectError(await h.admin('PATCH', '/api/admin/v1/assignments/asg_0000000000000000000000', { dueAt: null }), 404, 'not_found');
    expectError(await h.admin('PATCH', `/api/admin/v1/institutions/ins_0000000000000000000000/settings`, { allowProctoringRelaxations: true }), 404, 'not_found');
  });
});
