import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/expect-error.js';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { Student, assign, readAssignment } from '../helpers/student.js';

const START = new Date('2031-05-01T08:00:00.000Z');
const clock = manualClock(START);
const MINUTE = 60_000;
const P = '/api/partner/v1';
let h: Harness;

beforeAll(async () => {
  h = await createHarness({ clock });
});
afterAll(() => h.close());

const reissue = (id: string, tenant = h.a) => h.partner(tenant, 'POST', `${P}/assignments/${id}/start-link`);
async function firstQuestion(assignmentId: string): Promise<string> {
  return (await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}`)).json().items[0].questionId;
}

describe('POST /assignments/{id}/start-link', () => {
  it('revokes the old link ("link not valid") and returns a fresh one that works', async () => {
    clock.set(START);
    const due = new Date(START.getTime() + 3 * 24 * 60 * MINUTE);
    const a = await assign(h, h.a, { externalUserId: 'l-1', dueAt: due.toISOString() });
    const res = await reissue(a.assignmentId);
    expect(res.statusCode, res.body).toBe(200);
    const fresh = res.json();
    expect(fresh).toMatchObject({ assignmentId: a.assignmentId, status: 'assigned', startUrlExpiresAt: due.toISOString() });
    expect(fresh.startUrl).not.toBe(a.startUrl);

    const old = await new Student(h).open(a.startUrl);
    expect(old.statusCode).toBe(404);
    expect(old.body).toContain('This link is not valid');
    expect(old.headers['set-cookie']).toBeUndefined();

    const s = new Student(h);
    const opened = await s.open(fresh.startUrl);
    expect(opened.statusCode).toBe(303);
    expect((await s.page(a.assignmentId)).body).toContain('Begin test');
    // Reads sign links of the new version too; no event for a new link.
    expect((await new Student(h).open((await readAssignment(h, h.a, a.assignmentId)).startUrl)).statusCode).toBe(303);
    expect((await h.pool.query('SELECT count(*)::int AS n FROM events WHERE assignment_id = $1', [a.assignmentId])).rows[0].n).toBe(0);
  });

  it('mid-test: ends the sessions the old link opened; the new link resumes the same attempt with its answers', async () => {
    clock.set(START);
    const a = await assign(h, h.a, { externalUserId: 'l-2' });
    const s = new Student(h);
    await s.start(a.startUrl);
    await s.page(a.assignmentId);
    const q = await firstQuestion(a.assignmentId);
    expect((await s.save(a.assignmentId, [{ questionId: q, value: 'b', version: 1 }])).statusCode).toBe(200);
    // Another student's session (same institution, another user) is untouched.
    const other = await assign(h, h.a, { externalUserId: 'l-2-other' });
    const bystander = new Student(h);
    await bystander.start(other.startUrl);

    clock.advance(MINUTE);
    const fresh = (await reissue(a.assignmentId)).json();
    expect(fresh.status).toBe('started');

    expect((await s.page(a.assignmentId)).statusCode).toBe(404);
    expectError(await s.save(a.assignmentId, [{ questionId: q, value: 'a', version: 2 }]), 401, 'unauthenticated');
    expectError(await s.get(`/a/${a.assignmentId}/status`), 401, 'unauthenticated');
    expect((await bystander.page(other.assignmentId)).statusCode).toBe(200);

    const back = new Student(h);
    expect((await back.open(fresh.startUrl)).statusCode).toBe(303);
    const page = await back.page(a.assignmentId);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('id="submit-form"');
    expect(page.body).toMatch(/value="b" checked/);
    expect((await back.save(a.assignmentId, [{ questionId: q, value: 'a', version: 2 }])).statusCode).toBe(200);
    const events = await h.pool.query('SELECT type FROM events WHERE assignment_id = $1 ORDER BY sequence', [a.assignmentId]);
    expect(events.rows.map((r) => r.type)).toEqual(['exam.started']);
  });

  it('a link opened while it is being revoked never leaves a working session behind', async () => {
    clock.set(START);
    for (let i = 0; i < 15; i++) {
      const a = await assign(h, h.a, { externalUserId: `l-race-${i}` });
      const s = new Student(h);
      const [opened, reissued] = await Promise.all([s.open(a.startUrl), reissue(a.assignmentId)]);
      expect(reissued.statusCode).toBe(200);
      if (opened.statusCode === 303) expect((await s.page(a.assignmentId)).statusCode).toBe(404);
      else expect(opened.statusCode).toBe(404);
    }
  });

  it('only while assigned or started: 409 invalid_state otherwise, the link version unchanged', async () => {
    clock.set(START);
    const done = await assign(h, h.a, { externalUserId: 'l-409-1' });
    const s = new Student(h);
    await s.start(done.startUrl);
    await s.submit(done.assignmentId);
    const cancelled = await assign(h, h.a, { externalUserId: 'l-409-2' });
    await h.partner(h.a, 'POST', `${P}/assignments/${cancelled.assignmentId}/cancel`);
    const expired = await assign(h, h.a, { externalUserId: 'l-409-3', dueAt: new Date(START.getTime() + MINUTE).toISOString() });
    clock.advance(MINUTE);
    for (const id of [done.assignmentId, cancelled.assignmentId, expired.assignmentId]) {
      expectError(await reissue(id), 409, 'invalid_state');
      expect((await h.pool.query('SELECT link_version FROM assignments WHERE id = $1', [id])).rows[0].link_version).toBe(1);
    }
  });

  it('another institution’s key: 404 like an unknown id, and the link keeps working', async () => {
    const a = await assign(h, h.a, { externalUserId: 'l-404' });
    const foreign = await reissue(a.assignmentId, h.b);
    expectError(foreign, 404, 'not_found');
    expect(foreign.json().error.message).toBe((await reissue('asg_0000000000000000000000', h.b)).json().error.message);
    expect((await new Student(h).open(a.startUrl)).statusCode).toBe(303);
  });

  it('the operator API issues a new link for any institution', async () => {
    const a = await assign(h, h.b, { externalUserId: 'l-op' });
    const res = await h.admin('POST', `/api/admin/v1/assignments/${a.assignmentId}/start-link`);
    expect(res.statusCode).toBe(200);
    expect((await new Student(h).open(a.startUrl)).statusCode).toBe(404);
    expect((await new Student(h).open(res.json().startUrl)).statusCode).toBe(303);
  });
});
