import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTO_TEST, createHarness, type Harness } from '../helpers/harness.js';
import { portalPost, signedIn, type PortalUser } from '../helpers/portal.js';
import { portalJson } from '../helpers/authoring.js';

/**
 * Try it: the draft as a student takes it, in test mode. A test-mode
 * assignment of a trial version that no partner, list or version number
 * ever shows; refused (with the problems in words, nothing made) for a draft
 * that is not complete, for roles without authoring and for another
 * institution's test.
 */
let h: Harness;
let author: PortalUser;
let authorB: PortalUser;
let operator: PortalUser;
const users = {} as Record<'viewer' | 'reviewer', PortalUser>;

beforeAll(async () => {
  h = await createHarness();
  author = await signedIn(h, 'author', h.a.institutionId, 'Ada Author');
  authorB = await signedIn(h, 'author', h.b.institutionId);
  operator = await signedIn(h, 'operator');
  for (const role of ['viewer', 'reviewer'] as const) users[role] = await signedIn(h, role, h.a.institutionId);
});
afterAll(() => h.close());

async function draftOf(user: PortalUser, content: Record<string, unknown> = AUTO_TEST): Promise<string> {
  const res = await portalJson(h, user, 'POST', '/portal/authoring/tests', { content });
  expect(res.statusCode).toBe(201);
  return res.json().testId;
}
const made = async () => (await h.pool.query(`SELECT (SELECT count(*) FROM assignments)::int AS assignments, (SELECT count(*) FROM test_versions)::int AS versions`)).rows[0];

describe('Try it', () => {
  it('makes a test-mode assignment of a trial version and opens its start link; partners and version lists never see it', async () => {
    const testId = await draftOf(author);
    const res = await portalPost(h, author, `/portal/tests/${testId}/try`);
    expect(res.statusCode, res.body).toBe(303);
    const start = new URL(res.headers.location as string);
    const { rows } = await h.pool.query(
      `SELECT a.livemode, a.callback_url, u.external_user_id, tv.version FROM assignments a JOIN users u ON u.id = a.user_id JOIN test_versions tv ON tv.id = a.test_version_id WHERE a.test_id = $1`,
      [testId],
    );
    expect(rows).toEqual([{ livemode: false, callback_url: expect.stringMatching(new RegExp(`/portal/tests/${testId}/edit$`)), external_user_id: `portal-try:${author.staffId}`, version: -2 }]);
    // The start link opens the test like any other.
    const opened = await h.app.inject({ method: 'GET', url: start.pathname + start.search });
    expect([200, 303]).toContain(opened.statusCode);

    // Never published, never listed: not to the partner (live or test key), not among the versions.
    for (const tenant of [h.a]) {
      const listed = (await h.partner(tenant, 'GET', '/api/partner/v1/tests')).json().data.map((t: { testId: string }) => t.testId);
      expect(listed).not.toContain(testId);
    }
    expect((await portalJson(h, author, 'GET', `/portal/authoring/tests/${testId}/versions`)).json().data).toEqual([]);
    const assign = await h.partner(h.a, 'POST', '/api/partner/v1/assignments', { testId, externalUserId: 'someone', user: { email: 's@example.com' }, callbackUrl: h.a.callbackUrl });
    expect(assign.statusCode).toBe(422);

    // Published afterwards, the trial copy still takes no version number: version 1 is the first.
    expect((await portalJson(h, author, 'POST', `/portal/authoring/tests/${testId}/versions`, { revision: 1 })).json().version).toBe(1);
    // Trying the same revision again reuses its trial copy.
    const before = await made();
    expect((await portalPost(h, author, `/portal/tests/${testId}/try`)).statusCode).toBe(303);
    const after = await made();
    expect(after.assignments).toBe(before.assignments + 1);
  });

  it('refuses a draft that is not complete, listing the problems in words, and makes nothing', async () => {
    const testId = await draftOf(author, { title: 'Half done', sections: [{ title: 'Section 1', questions: [] }] });
    const before = await made();
    const res = await portalPost(h, author, `/portal/tests/${testId}/try`);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('The draft cannot be tried yet');
    expect(res.body).toMatch(/durationMinutes/);
    expect(await made()).toEqual(before);
  });

  it('refuses a catalogue test (no institution to try it in) with a page that says why', async () => {
    const testId = await draftOf(operator);
    const res = await portalPost(h, operator, `/portal/tests/${testId}/try`);
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('Try it needs an institution');
  });

  it('is refused signed out, without the CSRF token, for viewers and reviewers (403) and on another institution’s test (404), making nothing', async () => {
    const testId = await draftOf(author);
    const before = await made();
    expect((await portalPost(h, null, `/portal/tests/${testId}/try`)).statusCode).toBe(403);
    expect((await portalPost(h, author, `/portal/tests/${testId}/try`, { csrf: 'wrong' })).statusCode).toBe(403);
    for (const role of ['viewer', 'reviewer'] as const) expect((await portalPost(h, users[role], `/portal/tests/${testId}/try`)).statusCode).toBe(403);
    expect((await portalPost(h, authorB, `/portal/tests/${testId}/try`)).statusCode).toBe(404);
    expect(await made()).toEqual(before);
  });

  it('an operator may try an institution’s own test', async () => {
    const testId = await draftOf(authorB);
    expect((await portalPost(h, operator, `/portal/tests/${testId}/try`)).statusCode).toBe(303);
  });
});
