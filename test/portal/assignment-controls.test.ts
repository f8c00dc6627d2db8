import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { auditActions, portalGet, portalPost, signedIn, type PortalUser } from '../helpers/portal.js';
import { ALL_TYPES_TEST, Student, assign, createPublishedTest, pathOf, readAssignment } from '../helpers/student.js';

/**
 * Assignment controls in the portal (admins): extra time, due date, new
 * start link (shown once), cancel after a confirmation; each through the
 * partner API's services with an audit entry. And the operator API's
 * controls now write theirs (actor operator_token).
 */
let h: Harness;
let testId: string;
let admin: PortalUser;
let reviewer: PortalUser;
let viewer: PortalUser;
let otherAdmin: PortalUser;
let started: { assignmentId: string; startUrl: string };
let waiting: { assignmentId: string; startUrl: string };

const entries = async (action: string) => (await auditActions(h, h.a.institutionId)).filter((e) => e.action === action);
const events = async (id: string) => (await h.pool.query('SELECT type FROM events WHERE assignment_id = $1 ORDER BY sequence', [id])).rows.map((r) => r.type);

beforeAll(async () => {
  h = await createHarness();
  testId = await createPublishedTest(h, h.a, ALL_TYPES_TEST);
  started = await assign(h, h.a, { testId, externalUserId: 'mid-test' });
  const s = new Student(h);
  await s.start(started.startUrl);
  waiting = await assign(h, h.a, { testId, externalUserId: 'not-begun' });
  admin = await signedIn(h, 'admin', h.a.institutionId);
  reviewer = await signedIn(h, 'reviewer', h.a.institutionId);
  viewer = await signedIn(h, 'viewer', h.a.institutionId);
  otherAdmin = await signedIn(h, 'admin', h.b.institutionId);
});
afterAll(() => h.close());

describe('who may', () => {
  it('admins see the controls; reviewers and viewers do not, and their posts are 403; another institution gets 404', async () => {
    const page = (u: PortalUser) => portalGet(h, u, `/portal/assignments/${waiting.assignmentId}`);
    expect((await page(admin)).body).toContain('Change this assignment');
    expect((await page(reviewer)).body).not.toContain('Change this assignment');
    expect((await page(viewer)).body).not.toContain('Change this assignment');
    for (const u of [reviewer, viewer]) {
      expect((await portalPost(h, u, `/portal/assignments/${waiting.assignmentId}/cancel`)).statusCode).toBe(403);
      expect((await portalPost(h, u, `/portal/assignments/${waiting.assignmentId}/extra-time`, { unit: 'percent', amount: '50' })).statusCode).toBe(403);
    }
    expect((await portalPost(h, otherAdmin, `/portal/assignments/${waiting.assignmentId}/cancel`)).statusCode).toBe(404);
    expect((await portalPost(h, otherAdmin, `/portal/assignments/${waiting.assignmentId}/start-link`)).statusCode).toBe(404);
    expect((await readAssignment(h, h.a, waiting.assignmentId)).status).toBe('assigned');
    expect(await entries('assignment.cancelled')).toHaveLength(0);
  });
});

describe('extra time and due date', () => {
  it('a bad amount or a past due date is shown against its field and changes nothing', async () => {
    const bad = await portalPost(h, admin, `/portal/assignments/${started.assignmentId}/extra-time`, { unit: 'percent', amount: '900' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('href="#f-amount"');
    expect(bad.body).toContain('Enter a whole number from 0 to 400.');
    const past = await portalPost(h, admin, `/portal/assignments/${started.assignmentId}/due-date`, { dueAt: '2020-01-01T10:00' });
    expect(past.statusCode).toBe(400);
    expect(past.body).toContain('href="#f-dueAt"');
    expect(past.body).toContain('The due date must be in the future');
    expect((await readAssignment(h, h.a, started.assignmentId)).accommodations ?? null).toBeNull();
    expect(await entries('assignment.updated')).toHaveLength(0);
  });

  it('extra time reaches the running attempt, with assignment.updated and an audit entry', async () => {
    const res = await portalPost(h, admin, `/portal/assignments/${started.assignmentId}/extra-time`, { unit: 'minutes', amount: '15' });
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe(`/portal/assignments/${started.assignmentId}?done=extra-time-saved`);
    expect((await readAssignment(h, h.a, started.assignmentId)).accommodations).toEqual({ extraTimeMinutes: 15 });
    expect(await events(started.assignmentId)).toContain('assignment.updated');
    expect((await entries('assignment.updated'))[0]).toMatchObject({ actor_id: admin.staffId, object_id: started.assignmentId, details: { changes: { accommodations: { extraTimeMinutes: 15 } } } });
    expect((await portalGet(h, admin, res.headers.location as string)).body).toContain('15 minutes of extra time');
  });

  it('a new due date (UTC) is saved', async () => {
    const due = new Date(h.clock.now().getTime() + 3 * 86_400_000).toISOString().slice(0, 16);
    const res = await portalPost(h, admin, `/portal/assignments/${waiting.assignmentId}/due-date`, { dueAt: due });
    expect(res.statusCode, res.body).toBe(303);
    expect((await readAssignment(h, h.a, waiting.assignmentId)).dueAt).toBe(`${due}:00.000Z`);
    expect(await entries('assignment.updated')).toHaveLength(2);
  });
});

describe('a new start link', () => {
  it('is shown once, the old one stops working, and the audit entry holds no link', async () => {
    const res = await portalPost(h, admin, `/portal/assignments/${waiting.assignmentId}/start-link`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const fresh = /<code id="new-link"[^>]*>([^<]+)<\/code>/.exec(res.body)![1]!;
    expect(fresh).not.toBe(waiting.startUrl);
    const old = await h.app.inject({ method: 'GET', url: pathOf(waiting.startUrl) });
    expect(old.body).toMatch(/not valid/i);
    const opened = await h.app.inject({ method: 'GET', url: pathOf(fresh.replace(/&amp;/g, '&')) });
    expect(opened.statusCode).toBe(303);
    const [entry] = await entries('assignment.start_link_reissued');
    expect(entry).toMatchObject({ actor_id: admin.staffId, object_id: waiting.assignmentId });
    expect(JSON.stringify(entry)).not.toContain('/s/');
  });
});

describe('cancelling', () => {
  it('asks for confirmation first, then cancels the running attempt with assignment.cancelled and an audit entry', async () => {
    const confirm = await portalGet(h, admin, `/portal/assignments/${started.assignmentId}/cancel`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('The student is taking this test now');
    expect((await readAssignment(h, h.a, started.assignmentId)).status).toBe('started');
    const res = await portalPost(h, admin, `/portal/assignments/${started.assignmentId}/cancel`);
    expect(res.statusCode).toBe(303);
    expect((await readAssignment(h, h.a, started.assignmentId)).status).toBe('cancelled');
    expect(await events(started.assignmentId)).toContain('assignment.cancelled');
    expect(await entries('assignment.cancelled')).toHaveLength(1);
    // No controls on a cancelled assignment; changing it now is refused with the reason.
    expect((await portalGet(h, admin, `/portal/assignments/${started.assignmentId}`)).body).not.toContain('Change this assignment');
    const late = await portalPost(h, admin, `/portal/assignments/${started.assignmentId}/extra-time`, { unit: 'percent', amount: '10' });
    expect(late.statusCode).toBe(400);
    expect(late.body).toMatch(/cancelled/);
  });
});

describe('the operator API', () => {
  it('records its controls in the audit log as the operator token', async () => {
    const a = await assign(h, h.a, { testId, externalUserId: 'by-operator' });
    expect((await h.admin('PATCH', `/api/admin/v1/assignments/${a.assignmentId}`, { accommodations: { extraTimePercent: 50 } })).statusCode).toBe(200);
    expect((await h.admin('POST', `/api/admin/v1/assignments/${a.assignmentId}/start-link`)).statusCode).toBe(200);
    expect((await h.admin('POST', `/api/admin/v1/assignments/${a.assignmentId}/cancel`)).statusCode).toBe(200);
    const { rows } = await h.pool.query('SELECT action, actor_kind, institution_id FROM audit_log WHERE object_id = $1 ORDER BY id', [a.assignmentId]);
    expect(rows).toEqual([
      { action: 'assignment.updated', actor_kind: 'operator_token', institution_id: h.a.institutionId },
      { action: 'assignment.start_link_reissued', actor_kind: 'operator_token', institution_id: h.a.institutionId },
      { action: 'assignment.cancelled', actor_kind: 'operator_token', institution_id: h.a.institutionId },
    ]);
    // A refused control writes nothing.
    expect((await h.admin('PATCH', `/api/admin/v1/assignments/${a.assignmentId}`, { dueAt: '2099-01-01T00:00:00Z' })).statusCode).toBe(409);
    expect((await h.pool.query('SELECT count(*)::int AS n FROM audit_log WHERE object_id = $1', [a.assignmentId])).rows[0].n).toBe(3);
  });
});
