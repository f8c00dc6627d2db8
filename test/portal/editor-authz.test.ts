import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { StaffRole } from '../../src/modules/staff/principal.js';
import { AUTO_TEST, createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, portalPost, signedIn, type PortalUser } from '../helpers/portal.js';
import { portalJson } from '../helpers/authoring.js';

/**
 * The form editor's routes by role and institution: a test's editor page and
 * its draft preview (GET), New test (a form post) and the editor's image
 * upload (image bytes with X-CSRF-Token). Signed out → sign-in (pages) or
 * 403 (changes); viewer and reviewer → 403; an author or admin of A on A's
 * own test → allowed, on B's own test or the operators' catalogue → 404; an
 * operator → allowed anywhere. Refusals change nothing.
 */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

let h: Harness;
const users = {} as Record<Exclude<StaffRole, 'operator'> | 'operator', PortalUser>;
let authorB: PortalUser;

beforeAll(async () => {
  h = await createHarness();
  for (const role of ['admin', 'author', 'reviewer', 'viewer'] as const) users[role] = await signedIn(h, role, h.a.institutionId);
  users.operator = await signedIn(h, 'operator');
  authorB = await signedIn(h, 'author', h.b.institutionId);
});
afterAll(() => h.close());

async function ownTest(author: PortalUser, content: Record<string, unknown> = AUTO_TEST): Promise<string> {
  const created = await portalJson(h, author, 'POST', '/portal/authoring/tests', { content });
  expect(created.statusCode).toBe(201);
  return created.json().testId as string;
}

const counts = async () => (await h.pool.query(`SELECT (SELECT count(*) FROM tests)::int AS tests, (SELECT count(*) FROM assets)::int AS assets`)).rows[0];

function upload(user: PortalUser | null, csrf: string | null = user?.csrf ?? null, body: Buffer = PNG, type = 'image/png'): Promise<LightMyRequestResponse> {
  return h.app.inject({
    method: 'POST',
    url: '/portal/authoring/assets',
    headers: { 'content-type': type, ...(user ? { cookie: user.cookie } : {}), ...(csrf ? { 'x-csrf-token': csrf } : {}) },
    payload: body,
  });
}

describe.each(['edit', 'draft/preview'])('GET /portal/tests/:testId/%s', (page) => {
  const url = (testId: string) => `/portal/tests/${testId}/${page}`;

  it('signed out: sends the visitor to sign in', async () => {
    const res = await portalGet(h, null, url(await ownTest(users.author)));
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(/^\/portal\/sign-in\?next=/);
  });

  it.each(['viewer', 'reviewer'] as const)('a %s: 403', async (role) => {
    expect((await portalGet(h, users[role], url(await ownTest(users.author)))).statusCode).toBe(403);
  });

  it.each(['author', 'admin'] as const)("an %s of A: 200 on A's own test, 404 on B's own and on the operators' catalogue", async (role) => {
    expect((await portalGet(h, users[role], url(await ownTest(users.author)))).statusCode).toBe(200);
    expect((await portalGet(h, users[role], url(await ownTest(authorB)))).statusCode).toBe(404);
    expect((await portalGet(h, users[role], url(h.a.testId))).statusCode).toBe(404);
  });

  it("an operator: 200 on B's own test and on the catalogue", async () => {
    expect((await portalGet(h, users.operator, url(await ownTest(authorB)))).statusCode).toBe(200);
    expect((await portalGet(h, users.operator, url(h.a.testId))).statusCode).toBe(200);
  });
});

describe('POST /portal/tests/drafts (New test)', () => {
  it('signed out, without the CSRF token, or as a viewer or reviewer: 403, nothing created', async () => {
    const before = await counts();
    expect((await portalPost(h, null, '/portal/tests/drafts', { title: 'x' })).statusCode).toBe(403);
    expect((await portalPost(h, users.author, '/portal/tests/drafts', { title: 'x', csrf: 'wrong' })).statusCode).toBe(403);
    for (const role of ['viewer', 'reviewer'] as const) expect((await portalPost(h, users[role], '/portal/tests/drafts', { title: 'x' })).statusCode).toBe(403);
    expect(await counts()).toEqual(before);
  });

  it.each([
    ['author', (): string | null => h.a.institutionId],
    ['admin', (): string | null => h.a.institutionId],
    ['operator', (): string | null => null],
  ] as const)('a %s: a draft owned by their institution (the catalogue for operators), opened in the editor', async (role, owner) => {
    const res = await portalPost(h, users[role], '/portal/tests/drafts', { title: `Made by ${role}` });
    expect(res.statusCode).toBe(303);
    const testId = /^\/portal\/tests\/([^/]+)\/edit\?done=draft-created$/.exec(res.headers.location as string)![1]!;
    const { rows } = await h.pool.query('SELECT owner_institution_id, current_version FROM tests WHERE id = $1', [testId]);
    expect(rows[0]).toEqual({ owner_institution_id: owner(), current_version: 0 });
    const draft = (await portalJson(h, users[role], 'GET', `/portal/authoring/tests/${testId}/draft`)).json();
    expect(draft.content).toMatchObject({ title: `Made by ${role}`, contentFormat: 'markdown', sections: [{ title: 'Section 1', questions: [] }] });
  });
});

describe('POST /portal/authoring/assets (the editor’s image upload)', () => {
  it('signed out, without the CSRF token, or as a viewer or reviewer: 403, nothing stored', async () => {
    const before = await counts();
    expect((await upload(null)).statusCode).toBe(403);
    expect((await upload(users.author, null)).statusCode).toBe(403);
    for (const role of ['viewer', 'reviewer'] as const) expect((await upload(users[role])).statusCode).toBe(403);
    expect(await counts()).toEqual(before);
  });

  it('refuses what is not the image it says, in the envelope, storing nothing', async () => {
    const before = await counts();
    const res = await upload(users.author, users.author.csrf, Buffer.from('not a png'));
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect((await upload(users.author, users.author.csrf, PNG, 'application/pdf')).statusCode).toBe(415);
    // Without a Content-Type: told which image types are taken, not to send JSON.
    const untyped = await h.app.inject({ method: 'POST', url: '/portal/authoring/assets', headers: { cookie: users.author.cookie, 'x-csrf-token': users.author.csrf }, payload: PNG });
    expect(untyped.statusCode).toBe(415);
    expect(untyped.json().error.message).toBe('Send the body with a Content-Type this route takes: image/png, image/jpeg, image/gif, image/webp, image/svg+xml.');
    expect(await counts()).toEqual(before);
  });

  it.each([
    ['author', (): string | null => h.a.institutionId],
    ['admin', (): string | null => h.a.institutionId],
    ['operator', (): string | null => null],
  ] as const)('a %s: 201, the asset owned by their institution (the platform for operators), usable in their tests only', async (role, owner) => {
    const res = await upload(users[role]);
    expect(res.statusCode, res.body).toBe(201);
    const { assetId } = res.json();
    const { rows } = await h.pool.query('SELECT owner_institution_id FROM assets WHERE id = $1', [assetId]);
    expect(rows[0].owner_institution_id).toBe(owner());
    if (role === 'author') {
      const prompt = `Look: ![A dot](asset:${assetId})`;
      const mine = await ownTest(users.author, { ...AUTO_TEST, contentFormat: 'markdown', questions: [{ ...AUTO_TEST.questions![0]!, prompt }] });
      expect((await portalJson(h, users.author, 'GET', `/portal/authoring/tests/${mine}/draft`)).json().problems).toEqual([]);
      const theirs = await ownTest(authorB, { ...AUTO_TEST, contentFormat: 'markdown', questions: [{ ...AUTO_TEST.questions![0]!, prompt }] });
      expect((await portalJson(h, authorB, 'GET', `/portal/authoring/tests/${theirs}/draft`)).json().problems).not.toEqual([]);
    }
  });
});
