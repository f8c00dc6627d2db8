import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/expect-error.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { createPublishedTest, assign, Student } from '../helpers/student.js';
import { jpeg, proctoredTest, startProctored, webm, type Proctored } from '../helpers/proctoring.js';

/**
 * Issue 20, item 5: a student POST carrying the right session cookie and CSRF
 * token is still refused when the browser says it came from another site
 * (`Sec-Fetch-Site: cross-site` or `same-site`), the portal's rule: only
 * `same-origin`, or no header at all (older browsers), is allowed. Nothing changes.
 */
let h: Harness;
let p: Proctored;

beforeAll(async () => {
  h = await createHarness();
  p = await startProctored(h, h.a, proctoredTest('record'), 'cross-site-1');
});
afterAll(() => h.close());

const q = async (assignmentId: string) => (await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}`)).json().items[0].questionId as string;
/** The highest answer version stored: a refused save leaves it where it was. */
const answersOf = async (assignmentId: string) =>
  (await h.pool.query(`SELECT coalesce(max(version), 0)::int AS v FROM answers WHERE assignment_id = $1`, [assignmentId])).rows[0].v as number;

describe.each(['cross-site', 'same-site'])('Sec-Fetch-Site: %s', (site) => {
  it('the answers route refuses a valid token with 403 and saves nothing; same-origin and no header are accepted', async () => {
    const s = p.student;
    const questionId = await q(p.assignmentId);
    const post = (extra: Record<string, string>, version: number) =>
      h.app.inject({
        method: 'POST',
        url: `/a/${p.assignmentId}/answers`,
        headers: { 'content-type': 'application/json', cookie: s.cookie!, 'x-csrf-token': s.csrf!, ...extra },
        payload: JSON.stringify({ answers: [{ questionId, value: String(version), version: version + (site === 'same-site' ? 10 : 0) }] }),
      });
    const before = await answersOf(p.assignmentId);
    expectError(await post({ 'sec-fetch-site': site }, 1000), 403, 'forbidden');
    expect(await answersOf(p.assignmentId)).toBe(before);
    expect((await post({ 'sec-fetch-site': 'same-origin' }, 1001)).statusCode).toBe(200);
    expect((await post({}, 1002)).statusCode).toBe(200);
    expect(await answersOf(p.assignmentId)).toBe(1002 + (site === 'same-site' ? 10 : 0));
  });

  it('the proctoring heartbeat, segment and snapshot uploads refuse it with 403', async () => {
    const hb = await h.app.inject({
      method: 'POST',
      url: `/a/${p.assignmentId}/proctoring/heartbeat`,
      headers: { 'content-type': 'application/json', cookie: p.student.cookie!, 'x-csrf-token': p.student.csrf!, 'sec-fetch-site': site },
      payload: JSON.stringify({ signals: [], cameraActive: true, fullscreen: true }),
    });
    expectError(hb, 403, 'forbidden');
    const seg = await h.app.inject({
      method: 'POST',
      url: `/a/${p.assignmentId}/proctoring/segments/0`,
      headers: {
        'content-type': 'video/webm',
        cookie: p.student.cookie!,
        'x-csrf-token': p.student.csrf!,
        'sec-fetch-site': site,
        'x-segment-started-at': new Date().toISOString(),
        'x-segment-duration-ms': '10000',
      },
      payload: webm(),
    });
    expectError(seg, 403, 'forbidden');
    const snap = await h.app.inject({
      method: 'POST',
      url: `/a/${p.assignmentId}/proctoring/snapshots`,
      headers: { 'content-type': 'image/jpeg', cookie: p.student.cookie!, 'x-csrf-token': p.student.csrf!, 'sec-fetch-site': site, 'x-snapshot-taken-at': new Date().toISOString() },
      payload: jpeg(),
    });
    expectError(snap, 403, 'forbidden');
    const counts = await h.pool.query(
      `SELECT (SELECT count(*)::int FROM recording_segments WHERE assignment_id = $1) AS segments, (SELECT count(*)::int FROM proctoring_snapshots WHERE assignment_id = $1) AS snapshots`,
      [p.assignmentId],
    );
    expect(counts.rows[0]).toEqual({ segments: 0, snapshots: 0 });
  });

  it('Begin and Submit forms answer the 403 page and change nothing', async () => {
    const testId = await createPublishedTest(h, h.a, { ...proctoredTest('record'), proctoring: 'none' });
    const a = await assign(h, h.a, { testId, externalUserId: `forms-${site}` });
    const s = new Student(h);
    await s.open(a.startUrl);
    await s.page(a.assignmentId);
    const form = (path: string) =>
      h.app.inject({
        method: 'POST',
        url: `/a/${a.assignmentId}/${path}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: s.cookie!, 'sec-fetch-site': site },
        payload: new URLSearchParams({ csrf: s.csrf! }).toString(),
      });
    const begun = await form('begin');
    expect(begun.statusCode).toBe(403);
    expect(begun.headers['content-type']).toMatch(/^text\/html/);
    expect((await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${a.assignmentId}`)).json().status).toBe('assigned');
    expect((await s.begin(a.assignmentId)).statusCode).toBe(303);
    expect((await form('submit')).statusCode).toBe(403);
    expect((await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${a.assignmentId}`)).json().status).toBe('started');
  });
});
