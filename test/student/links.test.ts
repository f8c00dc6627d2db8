import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/expect-error.js';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { Student, assign, pathOf, readAssignment } from '../helpers/student.js';

const clock = manualClock(new Date('2031-03-01T09:00:00Z'));
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ clock });
});
afterAll(() => h.close());

const HOUR = 3_600_000;
const later = (ms: number) => new Date(clock.now().getTime() + ms).toISOString();

async function eventTypes(assignmentId: string): Promise<string[]> {
  const { rows } = await h.pool.query('SELECT type FROM events WHERE assignment_id = $1 ORDER BY sequence', [assignmentId]);
  return rows.map((r) => r.type);
}

function expectPage(res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, heading: string) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(String(res.headers['content-security-policy'])).toContain("script-src 'self'");
  expect(res.body).toContain(`<h1>${heading}</h1>`);
  expect(res.body).not.toMatch(/at .+\.(ts|js):\d+|Error:|SELECT /);
}

describe('opening a start link', () => {
  it('signs the student in with an HttpOnly, SameSite=Lax session cookie and redirects (303) to a URL without the token', async () => {
    const a = await assign(h, h.a, { externalUserId: 'open-1' });
    const s = new Student(h);
    const res = await s.open(a.startUrl);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/a/${a.assignmentId}`);
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/^assay_session=[0-9A-Za-z]{43}; Path=\/a\/; HttpOnly; SameSite=Lax$/);
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    // Only a hash of the session id is stored.
    const { rows } = await h.pool.query('SELECT id_hash FROM student_sessions');
    expect(rows.map((r) => r.id_hash)).not.toContain(s.cookie!.split('=')[1]);
    expectPage(await s.page(a.assignmentId), 200, 'Arithmetic');
  });

  it('never changes the status or emits an event, however often it is opened', async () => {
    const a = await assign(h, h.a, { externalUserId: 'open-2' });
    for (let i = 0; i < 3; i++) expect((await new Student(h).open(a.startUrl)).statusCode).toBe(303);
    expect((await readAssignment(h, h.a, a.assignmentId)).status).toBe('assigned');
    expect(await eventTypes(a.assignmentId)).toEqual([]);
  });

  it('does not sign anyone in on a HEAD request (link checkers): no session, no cookie', async () => {
    const a = await assign(h, h.a, { externalUserId: 'open-head' });
    const before = (await h.pool.query('SELECT count(*)::int AS n FROM student_sessions')).rows[0].n;
    const res = await h.app.inject({ method: 'HEAD', url: pathOf(a.startUrl) });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect((await h.pool.query('SELECT count(*)::int AS n FROM student_sessions')).rows[0].n).toBe(before);
  });

  it('marks the cookie Secure when the public URL is https', async () => {
    const secure = await createHarness({ clock, config: { publicBaseUrl: 'https://assay.example' } });
    try {
      const a = await assign(secure, secure.a);
      const res = await secure.app.inject({ method: 'GET', url: pathOf(a.startUrl) });
      expect(String(res.headers['set-cookie'])).toMatch(/; Secure/);
    } finally {
      await secure.close();
    }
  });

  it('shows a plain "This link is not valid" page (404) for a tampered, unknown or superseded token', async () => {
    const a = await assign(h, h.a, { externalUserId: 'open-3' });
    const token = pathOf(a.startUrl).slice(3);
    const [kid, payload, sig] = token.split('.') as [string, string, string];
    const flipped = sig.slice(0, -1) + (sig.endsWith('A') ? 'B' : 'A');
    const expiry = new Date(clock.now().getTime() + HOUR);
    const tries = [
      `${kid}.${payload}.${flipped}`,
      `${kid}.${Buffer.from(Buffer.from(payload, 'base64url').toString().replace('asg_', 'asg_x')).toString('base64url')}.${sig}`,
      'not-a-token',
      'a'.repeat(700),
      pathOf(h.ctx.signer.issue('asg_doesNotExist0000000000', 1, expiry).url).slice(3),
      pathOf(h.ctx.signer.issue(a.assignmentId, 2, expiry).url).slice(3),
    ];
    for (const t of tries) {
      const res = await h.app.inject({ method: 'GET', url: `/s/${t}` });
      expectPage(res, 404, 'This link is not valid');
      expect(res.headers['set-cookie']).toBeUndefined();
      // No institution is known for a link that is not valid: the footer names only Assay, once.
      expect(res.body).toContain('<p>Assessment delivered by Assay.</p>');
      expect(res.body).not.toMatch(/by Assay for Assay/);
    }
  });

  it('shows "This link has expired" (410) with what to do while the assignment is assigned or started', async () => {
    const a = await assign(h, h.a, { externalUserId: 'open-4' });
    const stale = h.ctx.signer.issue(a.assignmentId, 1, new Date(clock.now().getTime() - 1000)).url;
    const res = await h.app.inject({ method: 'GET', url: pathOf(stale) });
    expectPage(res, 410, 'This link has expired');
    expect(res.body).toContain('Go back to Alpha College and open the test again: it will give you a fresh link.');
    expect(res.headers['set-cookie']).toBeUndefined();

    await new Student(h).start(a.startUrl);
    expectPage(await h.app.inject({ method: 'GET', url: pathOf(stale) }), 410, 'This link has expired');
  });

  it('says an assignment not begun by dueAt has expired, whether the sweep, a read or the open got there first', async () => {
    const lazy = await assign(h, h.a, { externalUserId: 'due-1', dueAt: later(HOUR) });
    const swept = await assign(h, h.a, { externalUserId: 'due-2', dueAt: later(HOUR) });
    const read = await assign(h, h.a, { externalUserId: 'due-5', dueAt: later(HOUR) });
    clock.advance(HOUR + 1000);

    // Lazy on the partner's read, before any sweep.
    expect((await readAssignment(h, h.a, read.assignmentId)).status).toBe('expired');
    expect(await eventTypes(read.assignmentId)).toEqual(['assignment.expired']);

    // Lazy: nobody swept yet; opening the link expires it.
    const opened = await h.app.inject({ method: 'GET', url: pathOf(lazy.startUrl) });
    expectPage(opened, 410, 'This assignment has expired');
    expect(opened.body).toContain('Return to Alpha College');
    expect(await eventTypes(lazy.assignmentId)).toEqual(['assignment.expired']);

    // Sweep: the job scheduled at dueAt.
    await h.runJobs();
    expect((await readAssignment(h, h.a, swept.assignmentId)).status).toBe('expired');
    expect(await eventTypes(swept.assignmentId)).toEqual(['assignment.expired']);
    expect(await eventTypes(lazy.assignmentId)).toEqual(['assignment.expired']);
    expectPage(await h.app.inject({ method: 'GET', url: pathOf(swept.startUrl) }), 410, 'This assignment has expired');
  });

  it('expires instead of starting when Begin is pressed after dueAt', async () => {
    const a = await assign(h, h.a, { externalUserId: 'due-3', dueAt: later(HOUR) });
    const s = new Student(h);
    await s.open(a.startUrl);
    await s.page(a.assignmentId);
    clock.advance(HOUR);
    const begun = await s.begin(a.assignmentId);
    expect(begun.statusCode).toBe(303);
    expectPage(await s.page(a.assignmentId), 410, 'This assignment has expired');
    expect(await eventTypes(a.assignmentId)).toEqual(['assignment.expired']);
    const read = await readAssignment(h, h.a, a.assignmentId);
    expect(read).toMatchObject({ status: 'expired', startedAt: null, startUrl: null });
  });

  it('lets a started attempt run past dueAt to its time limit', async () => {
    const a = await assign(h, h.a, { externalUserId: 'due-4', dueAt: later(10 * 60_000) });
    const s = new Student(h);
    await s.start(a.startUrl);
    clock.advance(15 * 60_000);
    await h.runJobs();
    expectPage(await s.page(a.assignmentId), 200, 'Arithmetic');
    expect((await readAssignment(h, h.a, a.assignmentId)).status).toBe('started');
  });
});

describe('sessions', () => {
  it('reach only their own user’s assignments: another student’s or institution’s is not found', async () => {
    const mine = await assign(h, h.a, { externalUserId: 'sess-1' });
    const theirs = await assign(h, h.a, { externalUserId: 'sess-2' });
    const foreign = await assign(h, h.b, { externalUserId: 'sess-1' });
    const s = new Student(h);
    await s.start(mine.startUrl);
    await s.page(mine.assignmentId);
    const other = new Student(h);
    await other.start(theirs.startUrl);

    for (const id of [theirs.assignmentId, foreign.assignmentId, 'asg_unknown']) {
      expectPage(await s.get(`/a/${id}`), 404, 'This page is not available');
      expectPage(await s.begin(id), 404, 'This page is not available');
      expectPage(await s.submit(id), 404, 'This page is not available');
      expectError(await s.save(id, [{ questionId: 'x', value: null, version: 1 }]), 404, 'not_found');
    }
    expect((await readAssignment(h, h.a, theirs.assignmentId)).status).toBe('started');
    expect((await readAssignment(h, h.b, foreign.assignmentId)).status).toBe('assigned');
  });

  it('are required: no cookie, a made-up cookie, or an expired session gets nothing', async () => {
    const a = await assign(h, h.a, { externalUserId: 'sess-3' });
    const s = new Student(h);
    await s.start(a.startUrl);
    await s.page(a.assignmentId);
    const anon = new Student(h);
    expectPage(await anon.get(`/a/${a.assignmentId}`), 404, 'This page is not available');
    expectError(await anon.save(a.assignmentId, [{ questionId: 'x', value: null, version: 1 }], s.csrf), 401, 'unauthenticated');
    anon.cookie = `assay_session=${'A'.repeat(43)}`;
    expectPage(await anon.get(`/a/${a.assignmentId}`), 404, 'This page is not available');

    clock.advance(13 * HOUR);
    expectPage(await s.get(`/a/${a.assignmentId}`), 404, 'This page is not available');
    // The start link signs in again (still valid, 7 days).
    expect((await s.open(a.startUrl)).statusCode).toBe(303);
    expect((await s.page(a.assignmentId)).statusCode).toBe(200);
  });

  it('refuse every POST without this session’s CSRF token, changing nothing', async () => {
    const a = await assign(h, h.a, { externalUserId: 'csrf-1' });
    const s = new Student(h);
    await s.open(a.startUrl);
    await s.page(a.assignmentId);
    const other = new Student(h);
    const b = await assign(h, h.a, { externalUserId: 'csrf-2' });
    await other.open(b.startUrl);
    await other.page(b.assignmentId);

    for (const fields of [{}, { csrf: '' }, { csrf: 'wrong' }, { csrf: other.csrf! }] as Array<Record<string, string>>) {
      expectPage(await s.postForm(`/a/${a.assignmentId}/begin`, fields), 403, 'This form has expired');
    }
    expect((await readAssignment(h, h.a, a.assignmentId)).status).toBe('assigned');

    expect((await s.begin(a.assignmentId)).statusCode).toBe(303);
    const questionId = (await h.admin('GET', `/api/admin/v1/assignments/${a.assignmentId}`)).json().items[0].questionId;
    for (const token of [null, 'wrong', other.csrf!]) {
      expectError(await s.save(a.assignmentId, [{ questionId, value: 'b', version: 1 }], token), 403, 'forbidden');
    }
    expectPage(await s.postForm(`/a/${a.assignmentId}/submit`, { csrf: 'wrong' }), 403, 'This form has expired');
    const view = (await h.admin('GET', `/api/admin/v1/assignments/${a.assignmentId}`)).json();
    expect(view.items[0].answer).toBeNull();
    expect(view.status).toBe('started');
  });

  it('refuse a form POST without the token with 403 whatever else is wrong with it (no body, other fields, another media type)', async () => {
    const a = await assign(h, h.a, { externalUserId: 'csrf-3' });
    const s = new Student(h);
    await s.open(a.startUrl);
    await s.page(a.assignmentId);
    const post = (headers: Record<string, string>, payload?: string) =>
      h.app.inject({ method: 'POST', url: `/a/${a.assignmentId}/begin`, headers: { cookie: s.cookie!, ...headers }, ...(payload !== undefined ? { payload } : {}) });
    expectPage(await post({}), 403, 'This form has expired');
    expectPage(await post({ 'content-type': 'application/x-www-form-urlencoded' }, 'other=1'), 403, 'This form has expired');
    expectPage(await post({ 'content-type': 'text/plain' }, 'hello'), 403, 'This form has expired');
    expect((await readAssignment(h, h.a, a.assignmentId)).status).toBe('assigned');
    // With the right token, a malformed form is still the plain "could not be processed" page.
    expectPage(await post({ 'content-type': 'application/x-www-form-urlencoded' }, `csrf=${s.csrf}&other=1`), 400, 'This request could not be processed');

    expect((await s.begin(a.assignmentId)).statusCode).toBe(303);
    const save = (headers: Record<string, string>, payload: string) =>
      h.app.inject({ method: 'POST', url: `/a/${a.assignmentId}/answers`, headers: { cookie: s.cookie!, 'content-type': 'application/json', ...headers }, payload });
    expectError(await save({}, '{"answers": "not a list"}'), 403, 'forbidden');
    expectError(await save({ 'x-csrf-token': s.csrf! }, '{"answers": "not a list"}'), 400, 'invalid_request');
  });

  it('the autosave refuses a body over its 1 MB limit with a message that names that limit', async () => {
    const a = await assign(h, h.a, { externalUserId: 'big-save' });
    const s = new Student(h);
    await s.start(a.startUrl);
    const res = await s.save(a.assignmentId, [{ questionId: 'x', value: 'y'.repeat(1_100_000), version: 1 }]);
    const err = expectError(res, 413, 'payload_too_large');
    expect(err.error.message).toMatch(/1 MB/);
    expect(err.error.message).not.toMatch(/64 KB/);
  });
});
