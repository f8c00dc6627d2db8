import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteOptions } from 'fastify';
import { createHttp } from '../../src/platform/http/create-http.js';
import { portalRoutes } from '../../src/modules/portal/portal-routes.js';
import type { StaffRole } from '../../src/modules/staff/principal.js';
import { AUTO_TEST, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { portalGet, signedIn, type PortalUser } from '../helpers/portal.js';
import { portalJson } from '../helpers/authoring.js';

/**
 * Authorisation of the portal's authoring JSON routes (/portal/authoring):
 * signed out → 401; viewer and reviewer → 403; an author or admin of A on
 * A's own test → allowed, on B's own test or the operators' catalogue →
 * 404; an operator → allowed anywhere; no CSRF token → 403. Each case
 * checks that nothing changed when refused. The table is checked against
 * the routes the portal registers, so a new authoring route without a row
 * here fails this file.
 */
interface Target {
  /** A draft-only test of the institution (revision 1, publishable). */
  testId: string;
}

interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  url: (t: Target) => string;
  body?: (t: Target) => unknown;
  /** Names a test: another institution's staff get 404. */
  owned: boolean;
  /** The success status. */
  ok: number;
}

const ROUTES: Route[] = [
  { method: 'GET', path: '/portal/authoring/tests', url: () => '/portal/authoring/tests', owned: false, ok: 200 },
  { method: 'POST', path: '/portal/authoring/tests', url: () => '/portal/authoring/tests', body: () => ({ content: { title: 'New' } }), owned: false, ok: 201 },
  { method: 'GET', path: '/portal/authoring/tests/:testId/draft', url: (t) => `/portal/authoring/tests/${t.testId}/draft`, owned: true, ok: 200 },
  { method: 'PUT', path: '/portal/authoring/tests/:testId/draft', url: (t) => `/portal/authoring/tests/${t.testId}/draft`, body: () => ({ revision: 1, content: { ...AUTO_TEST, title: 'Saved' } }), owned: true, ok: 200 },
  {
    method: 'POST',
    path: '/portal/authoring/tests/:testId/draft/sample-draws',
    url: (t) => `/portal/authoring/tests/${t.testId}/draft/sample-draws`,
    body: () => ({ question: { type: 'numeric', prompt: 'Double {a}?', points: 1, variables: [{ name: 'a', min: 1, max: 9, step: 1 }], answerFormula: '2 * a' } }),
    owned: true,
    ok: 200,
  },
  { method: 'POST', path: '/portal/authoring/tests/:testId/versions', url: (t) => `/portal/authoring/tests/${t.testId}/versions`, body: () => ({ revision: 1 }), owned: true, ok: 201 },
  { method: 'GET', path: '/portal/authoring/tests/:testId/versions', url: (t) => `/portal/authoring/tests/${t.testId}/versions`, owned: true, ok: 200 },
  { method: 'GET', path: '/portal/authoring/tests/:testId/versions/:version/diff', url: (t) => `/portal/authoring/tests/${t.testId}/versions/1/diff`, owned: true, ok: 200 },
  { method: 'DELETE', path: '/portal/authoring/tests/:testId', url: (t) => `/portal/authoring/tests/${t.testId}`, owned: true, ok: 204 },
];

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

/** A fresh test owned by the author's institution, with version 1 and a draft at revision 1 (so every route has something to act on). */
async function ownTest(author: PortalUser): Promise<Target> {
  const created = await portalJson(h, author, 'POST', '/portal/authoring/tests', { content: AUTO_TEST });
  expect(created.statusCode).toBe(201);
  const testId = created.json().testId as string;
  // Version 1 exists (for the diff), and the draft is back at a revision the table's bodies name.
  await h.pool.query(`UPDATE test_drafts SET revision = 1 WHERE test_id = $1`, [testId]);
  const v = await portalJson(h, author, 'POST', `/portal/authoring/tests/${testId}/versions`, { revision: 1 });
  expect(v.statusCode).toBe(201);
  await h.pool.query(`UPDATE test_drafts SET revision = 1 WHERE test_id = $1`, [testId]);
  return { testId };
}

/** The test's state, to show a refused request changed nothing. */
async function snapshot(testId: string) {
  const { rows } = await h.pool.query(
    `SELECT t.deleted_at, t.current_version, d.revision, d.content FROM tests t LEFT JOIN test_drafts d ON d.test_id = t.id WHERE t.id = $1`,
    [testId],
  );
  const count = await h.pool.query('SELECT count(*)::int AS n FROM tests');
  return { ...rows[0], tests: count.rows[0].n };
}

const call = (route: Route, user: PortalUser | null, t: Target, csrf?: string | null) => portalJson(h, user, route.method, route.url(t), route.body?.(t), csrf);

describe('the route table', () => {
  it('covers every authoring route the portal registers', async () => {
    const registered: string[] = [];
    const probe = createHttp({ logLevel: 'silent', logger: false });
    probe.addHook('onRoute', (r: RouteOptions) => {
      for (const m of [r.method].flat()) if (m !== 'HEAD') registered.push(`${m} ${r.url}`);
    });
    await probe.register(portalRoutes, { ctx: h.ctx });
    await probe.ready();
    await probe.close();
    // The image upload takes image bytes, not JSON: test/portal/editor-authz.test.ts covers it.
    const authoring = registered.filter((r) => r.split(' ')[1]!.startsWith('/portal/authoring') && r !== 'POST /portal/authoring/assets');
    expect([...new Set(authoring)].sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
  });
});

describe.each(ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', (_name, route) => {
  // A change without a session has no token to match either: the CSRF check refuses it first (403), as on every portal form.
  it(`signed out: ${route.method === 'GET' ? 401 : 403} in the envelope, nothing changes`, async () => {
    const t = await ownTest(users.author);
    const before = await snapshot(t.testId);
    if (route.method === 'GET') expectError(await call(route, null, t), 401, 'unauthenticated');
    else expectError(await call(route, null, t), 403, 'forbidden');
    expect(await snapshot(t.testId)).toEqual(before);
  });

  it.each(['viewer', 'reviewer'] as const)('a %s: 403, nothing changes', async (role) => {
    const t = await ownTest(users.author);
    const before = await snapshot(t.testId);
    expectError(await call(route, users[role], t), 403, 'forbidden');
    expect(await snapshot(t.testId)).toEqual(before);
  });

  it.each(['author', 'admin'] as const)("an %s of A: allowed on A's own test", async (role) => {
    const t = await ownTest(users.author);
    const res = await call(route, users[role], t);
    expect(res.statusCode, res.body).toBe(route.ok);
  });

  if (route.owned) {
    it.each(['author', 'admin'] as const)("an %s of A: 404 on B's own test and on the operators' catalogue, nothing changes", async (role) => {
      const b = await ownTest(authorB);
      const before = await snapshot(b.testId);
      expectError(await call(route, users[role], b), 404, 'not_found');
      expect(await snapshot(b.testId)).toEqual(before);
      const catalogue = { testId: h.a.testId }; // published to A, but the operators' own
      expectError(await call(route, users[role], catalogue), 404, 'not_found');
    });
  }

  it("an operator: allowed on B's own test", async () => {
    const t = await ownTest(authorB);
    const res = await call(route, users.operator, t);
    expect(res.statusCode, res.body).toBe(route.ok);
  });

  if (route.method !== 'GET') {
    it('without the CSRF token, or with another: 403, nothing changes', async () => {
      const t = await ownTest(users.author);
      const before = await snapshot(t.testId);
      for (const csrf of [null, users.author.csrf.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a'))]) {
        const res = await call(route, users.author, t, csrf);
        expect(res.statusCode).toBe(403);
      }
      expect(await snapshot(t.testId)).toEqual(before);
    });
  }
});

describe('what each role lists', () => {
  it("an author sees their institution's own tests only; an operator sees every institution's", async () => {
    const a = await ownTest(users.author);
    const b = await ownTest(authorB);
    const ids = async (u: PortalUser) => ((await portalJson(h, u, 'GET', '/portal/authoring/tests?limit=100')).json().data as Array<{ testId: string }>).map((t) => t.testId);
    const seenByA = await ids(users.author);
    expect(seenByA).toContain(a.testId);
    expect(seenByA).not.toContain(b.testId);
    expect(seenByA).not.toContain(h.a.testId);
    const seenByOperator = await ids(users.operator);
    expect(seenByOperator).toEqual(expect.arrayContaining([a.testId, b.testId, h.a.testId]));
  });

  it('shows Tests in the navigation to operators, admins and authors, and not to reviewers and viewers', async () => {
    for (const role of ['operator', 'admin', 'author', 'reviewer', 'viewer'] as const) {
      const page = await portalGet(h, users[role], '/portal');
      expect(page.statusCode).toBe(200);
      const hasTests = /<a[^>]+href="\/portal\/tests"[^>]*>Tests<\/a>/.test(page.body);
      expect(hasTests, role).toBe(['operator', 'admin', 'author'].includes(role));
    }
  });

  it("opens the Tests page for an author with their institution's tests, and an author can be invited", async () => {
    const a = await ownTest(users.author);
    const page = await portalGet(h, users.author, '/portal/tests');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(a.testId);
    expect(page.body).not.toContain(h.a.testId);
    const invited = await h.admin('POST', `/api/admin/v1/institutions/${h.a.institutionId}/staff`, { email: 'new-author@staff.example', role: 'author' });
    expect(invited.statusCode, invited.body).toBe(201);
    expect(invited.json().role).toBe('author');
  });
});
