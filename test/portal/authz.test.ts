import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteOptions } from 'fastify';
import { createHttp } from '../../src/platform/http/create-http.js';
import { portalRoutes } from '../../src/modules/portal/portal-routes.js';
import type { Permission, StaffRole } from '../../src/modules/staff/principal.js';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { portalGet, portalPost, signedIn, type PortalUser } from '../helpers/portal.js';
import { proctoredTest, startProctored } from '../helpers/proctoring.js';
import { ALL_TYPES_TEST, Student, assign, createPublishedTest } from '../helpers/student.js';

/**
 * Authorisation of every portal route and action: signed out → sign-in;
 * a role without the permission → 403; staff of institution A on B's
 * objects → 404; an operator reaches every institution; a forged form → 403.
 * The route table is checked against the routes the portal registers, so a
 * new route without a row here fails this file.
 */
interface Fixtures {
  assignmentId: string;
  /** A submitted attempt of a proctored test (its proctoring record). */
  proctoredId: string;
  endpointId: string;
  eventId: string;
  keyId: string;
  staffId: string;
  domain: string;
  ltiPlatformId: string;
  tenant: Tenant;
}

interface Route {
  method: 'GET' | 'POST';
  path: string;
  url: (f: Fixtures) => string;
  permission: Permission;
  fields?: (f: Fixtures) => Record<string, string>;
  /** Names objects of one institution: another institution's staff get 404. */
  owned?: boolean;
}

const ROUTES: Route[] = [
  { method: 'GET', path: '/portal', url: () => '/portal', permission: 'read' },
  { method: 'GET', path: '/portal/assignments', url: () => '/portal/assignments', permission: 'read' },
  { method: 'GET', path: '/portal/assignments/results.csv', url: () => '/portal/assignments/results.csv', permission: 'read' },
  { method: 'GET', path: '/portal/assignments/responses.csv', url: () => '/portal/assignments/responses.csv', permission: 'read' },
  { method: 'GET', path: '/portal/assignments/:assignmentId', url: (f) => `/portal/assignments/${f.assignmentId}`, permission: 'read', owned: true },
  { method: 'POST', path: '/portal/assignments/:assignmentId/extra-time', url: (f) => `/portal/assignments/${f.assignmentId}/extra-time`, permission: 'manage_integration', owned: true, fields: () => ({ unit: 'percent', amount: '10' }) },
  { method: 'POST', path: '/portal/assignments/:assignmentId/due-date', url: (f) => `/portal/assignments/${f.assignmentId}/due-date`, permission: 'manage_integration', owned: true, fields: () => ({ dueAt: '2099-01-01T10:00' }) },
  { method: 'GET', path: '/portal/assignments/:assignmentId/cancel', url: (f) => `/portal/assignments/${f.assignmentId}/cancel`, permission: 'manage_integration', owned: true },
  { method: 'POST', path: '/portal/assignments/:assignmentId/cancel', url: (f) => `/portal/assignments/${f.assignmentId}/cancel`, permission: 'manage_integration', owned: true },
  { method: 'POST', path: '/portal/assignments/:assignmentId/start-link', url: (f) => `/portal/assignments/${f.assignmentId}/start-link`, permission: 'manage_integration', owned: true },
  { method: 'GET', path: '/portal/proctoring', url: () => '/portal/proctoring', permission: 'review_proctoring' },
  { method: 'GET', path: '/portal/assignments/:assignmentId/proctoring', url: (f) => `/portal/assignments/${f.proctoredId}/proctoring`, permission: 'review_proctoring', owned: true },
  { method: 'POST', path: '/portal/assignments/:assignmentId/proctoring/review', url: (f) => `/portal/assignments/${f.proctoredId}/proctoring/review`, permission: 'review_proctoring', owned: true, fields: () => ({ flagId: 'flg_unknown', outcome: 'confirmed', note: 'x' }) },
  { method: 'GET', path: '/portal/marking', url: () => '/portal/marking', permission: 'mark' },
  { method: 'GET', path: '/portal/marking/:assignmentId', url: (f) => `/portal/marking/${f.assignmentId}`, permission: 'mark', owned: true },
  { method: 'POST', path: '/portal/marking/:assignmentId', url: (f) => `/portal/marking/${f.assignmentId}`, permission: 'mark', owned: true, fields: () => ({ version: 'x', action: 'save', 'points-es': '1' }) },
  { method: 'POST', path: '/portal/marking/:assignmentId/accept-ai', url: (f) => `/portal/marking/${f.assignmentId}/accept-ai`, permission: 'mark', owned: true, fields: () => ({ version: 'x' }) },
  { method: 'GET', path: '/portal/api-keys', url: () => '/portal/api-keys', permission: 'manage_integration' },
  { method: 'POST', path: '/portal/api-keys', url: () => '/portal/api-keys', permission: 'manage_integration', fields: () => ({ label: 'x' }) },
  { method: 'GET', path: '/portal/api-keys/:keyId/revoke', url: (f) => `/portal/api-keys/${f.keyId}/revoke`, permission: 'manage_integration', owned: true },
  { method: 'POST', path: '/portal/api-keys/:keyId/revoke', url: (f) => `/portal/api-keys/${f.keyId}/revoke`, permission: 'manage_integration', owned: true },
  { method: 'GET', path: '/portal/callback-domains', url: () => '/portal/callback-domains', permission: 'read' },
  { method: 'POST', path: '/portal/callback-domains', url: () => '/portal/callback-domains', permission: 'manage_integration', fields: () => ({ domain: 'new.example' }) },
  { method: 'POST', path: '/portal/callback-domains/remove', url: () => '/portal/callback-domains/remove', permission: 'manage_integration', owned: true, fields: (f) => ({ domain: f.domain }) },
  { method: 'GET', path: '/portal/webhooks', url: () => '/portal/webhooks', permission: 'read' },
  { method: 'POST', path: '/portal/webhooks', url: () => '/portal/webhooks', permission: 'manage_integration', fields: () => ({ url: 'https://new.example/hook' }) },
  { method: 'GET', path: '/portal/webhooks/:endpointId', url: (f) => `/portal/webhooks/${f.endpointId}`, permission: 'read', owned: true },
  { method: 'POST', path: '/portal/webhooks/:endpointId/status', url: (f) => `/portal/webhooks/${f.endpointId}/status`, permission: 'manage_integration', owned: true, fields: () => ({ status: 'disabled' }) },
  { method: 'POST', path: '/portal/webhooks/:endpointId/rotate-secret', url: (f) => `/portal/webhooks/${f.endpointId}/rotate-secret`, permission: 'manage_integration', owned: true },
  { method: 'POST', path: '/portal/webhooks/:endpointId/test', url: (f) => `/portal/webhooks/${f.endpointId}/test`, permission: 'manage_integration', owned: true },
  { method: 'POST', path: '/portal/webhooks/:endpointId/redeliver', url: (f) => `/portal/webhooks/${f.endpointId}/redeliver`, permission: 'manage_integration', owned: true, fields: (f) => ({ eventId: f.eventId }) },
  { method: 'GET', path: '/portal/lti', url: () => '/portal/lti', permission: 'manage_integration' },
  { method: 'POST', path: '/portal/lti', url: () => '/portal/lti', permission: 'manage_integration', fields: () => ({ issuer: 'https://new-lms.example', clientId: 'c', deploymentIds: 'd', authLoginUrl: 'https://new-lms.example/auth', authTokenUrl: 'https://new-lms.example/token', jwksUrl: 'https://new-lms.example/jwks' }) },
  { method: 'POST', path: '/portal/lti/registration-url', url: () => '/portal/lti/registration-url', permission: 'manage_integration' },
  { method: 'GET', path: '/portal/lti/:ltiPlatformId', url: (f) => `/portal/lti/${f.ltiPlatformId}`, permission: 'manage_integration', owned: true },
  { method: 'POST', path: '/portal/lti/:ltiPlatformId/deployments', url: (f) => `/portal/lti/${f.ltiPlatformId}/deployments`, permission: 'manage_integration', owned: true, fields: () => ({ deploymentIds: 'changed' }) },
  { method: 'POST', path: '/portal/lti/:ltiPlatformId/remove', url: (f) => `/portal/lti/${f.ltiPlatformId}/remove`, permission: 'manage_integration', owned: true },
  { method: 'GET', path: '/portal/staff', url: () => '/portal/staff', permission: 'manage_staff' },
  { method: 'POST', path: '/portal/staff', url: () => '/portal/staff', permission: 'manage_staff', fields: () => ({ email: 'new@staff.example', role: 'viewer' }) },
  { method: 'POST', path: '/portal/staff/:staffId/role', url: (f) => `/portal/staff/${f.staffId}/role`, permission: 'manage_staff', owned: true, fields: () => ({ role: 'reviewer' }) },
  { method: 'GET', path: '/portal/staff/:staffId/remove', url: (f) => `/portal/staff/${f.staffId}/remove`, permission: 'manage_staff', owned: true },
  { method: 'POST', path: '/portal/staff/:staffId/remove', url: (f) => `/portal/staff/${f.staffId}/remove`, permission: 'manage_staff', owned: true },
  { method: 'GET', path: '/portal/audit', url: () => '/portal/audit', permission: 'manage_staff' },
  { method: 'GET', path: '/portal/institutions', url: () => '/portal/institutions', permission: 'operate' },
  { method: 'POST', path: '/portal/institutions', url: () => '/portal/institutions', permission: 'operate', fields: () => ({ name: 'X' }) },
  { method: 'GET', path: '/portal/institutions/:institutionId', url: (f) => `/portal/institutions/${f.tenant.institutionId}`, permission: 'operate' },
  { method: 'POST', path: '/portal/institutions/:institutionId/status', url: (f) => `/portal/institutions/${f.tenant.institutionId}/status`, permission: 'operate', fields: () => ({ status: 'suspended' }) },
  { method: 'GET', path: '/portal/tests', url: () => '/portal/tests', permission: 'author_tests' },
  { method: 'GET', path: '/portal/tests/new', url: () => '/portal/tests/new', permission: 'operate' },
  { method: 'GET', path: '/portal/tests/import', url: () => '/portal/tests/import', permission: 'author_tests' },
  { method: 'GET', path: '/portal/tests/import/template.csv', url: () => '/portal/tests/import/template.csv', permission: 'author_tests' },
  { method: 'POST', path: '/portal/tests/import', url: () => '/portal/tests/import', permission: 'author_tests', fields: () => ({ title: 'x' }) },
  { method: 'POST', path: '/portal/tests', url: () => '/portal/tests', permission: 'operate', fields: () => ({ json: '{}' }) },
  { method: 'GET', path: '/portal/tests/:testId', url: (f) => `/portal/tests/${f.tenant.testId}`, permission: 'operate' },
  { method: 'POST', path: '/portal/tests/:testId', url: (f) => `/portal/tests/${f.tenant.testId}`, permission: 'operate', fields: () => ({ json: '{}' }) },
  { method: 'GET', path: '/portal/tests/:testId/statistics', url: (f) => `/portal/tests/${f.tenant.testId}/statistics`, permission: 'read', owned: true },
  { method: 'GET', path: '/portal/tests/:testId/statistics.csv', url: (f) => `/portal/tests/${f.tenant.testId}/statistics.csv`, permission: 'read', owned: true },
  { method: 'GET', path: '/portal/statistics', url: () => '/portal/statistics', permission: 'read' },
  { method: 'GET', path: '/portal/tests/:testId/preview', url: (f) => `/portal/tests/${f.tenant.testId}/preview`, permission: 'operate' },
  { method: 'POST', path: '/portal/tests/:testId/publications', url: (f) => `/portal/tests/${f.tenant.testId}/publications`, permission: 'operate', fields: (f) => ({ institution: f.tenant.institutionId, action: 'unpublish' }) },
];

/**
 * The staff half's own pages (sign-in, sign-out, account, passkeys) and the assets are tested with them;
 * a file answer's redirect to its signed link (files) by role and institution in answer-files.test.ts;
 * test content's images (content-assets) in test/catalog/assets.test.ts; authoring's JSON routes
 * (authoring) by role and institution in test/portal/authoring-authz.test.ts; the form editor's
 * pages (a test's editor, its draft preview, New test) in test/portal/editor-authz.test.ts; a test's
 * export (QTI package, CSV) in test/portal/portal-export.test.ts.
 */
const NOT_PAGE_GROUPS = /^\/portal\/((sign-in|sign-out|account|passkeys|assets|files|content-assets|authoring)(\/|$)|tests\/(drafts|:testId\/edit|:testId\/draft\/preview|:testId\/try|:testId\/export)$)/;

const ROLE_PERMISSIONS: Record<StaffRole, Permission[]> = {
  operator: ['read', 'mark', 'review_proctoring', 'manage_integration', 'manage_staff', 'author_tests', 'operate'],
  admin: ['read', 'mark', 'review_proctoring', 'manage_integration', 'manage_staff', 'author_tests'],
  author: ['read', 'author_tests'],
  reviewer: ['read', 'mark', 'review_proctoring'],
  viewer: ['read'],
};

let h: Harness;
let a: Fixtures;
let b: Fixtures;
const users = {} as Record<'admin' | 'author' | 'reviewer' | 'viewer' | 'operator', PortalUser>;

async function fixtures(tenant: Tenant, testId: string, name: string): Promise<Fixtures> {
  const asg = await assign(h, tenant, { testId, externalUserId: `${name}-student` });
  const s = new Student(h);
  await s.start(asg.startUrl);
  await s.page(asg.assignmentId);
  await s.save(asg.assignmentId, [{ questionId: 'es', value: 'text', version: 1 }]);
  await s.submit(asg.assignmentId);
  const ep = await h.partner(tenant, 'POST', '/api/partner/v1/webhook-endpoints', { url: `https://hooks.${name}.example/x` });
  const endpointId = ep.json().endpointId as string;
  const sent = await h.partner(tenant, 'POST', `/api/partner/v1/webhook-endpoints/${endpointId}/test`);
  const member = await signedIn(h, 'viewer', tenant.institutionId);
  const proctored = await startProctored(h, tenant, proctoredTest('record'), `${name}-proctored`);
  await proctored.student.submit(proctored.assignmentId);
  const lti = await h.admin('POST', `/api/admin/v1/institutions/${tenant.institutionId}/lti-platforms`, {
    issuer: `https://lms.${name}.example`,
    clientId: `client-${name}`,
    deploymentIds: ['deployment-1'],
    authLoginUrl: `https://lms.${name}.example/auth`,
    authTokenUrl: `https://lms.${name}.example/token`,
    jwksUrl: `https://lms.${name}.example/jwks`,
  });
  const ltiPlatformId = lti.json().ltiPlatformId as string;
  return { ltiPlatformId, assignmentId: asg.assignmentId, proctoredId: proctored.assignmentId, endpointId, eventId: sent.json().eventId, keyId: tenant.keyId, staffId: member.staffId, domain: `${name}.example`, tenant };
}

beforeAll(async () => {
  h = await createHarness();
  const testA = await createPublishedTest(h, h.a, ALL_TYPES_TEST);
  const testB = await createPublishedTest(h, h.b, ALL_TYPES_TEST);
  a = await fixtures(h.a, testA, 'alpha-college');
  b = await fixtures(h.b, testB, 'beta-academy');
  users.admin = await signedIn(h, 'admin', h.a.institutionId);
  users.author = await signedIn(h, 'author', h.a.institutionId);
  users.reviewer = await signedIn(h, 'reviewer', h.a.institutionId);
  users.viewer = await signedIn(h, 'viewer', h.a.institutionId);
  users.operator = await signedIn(h, 'operator');
});
afterAll(() => h.close());

/** Nothing of an institution changed: its key works, its endpoint is enabled, its marking item still waits, its staff member is there. */
async function expectUntouched(f: Fixtures) {
  expect((await h.partner(f.tenant, 'GET', '/api/partner/v1/tests')).statusCode).toBe(200);
  expect((await h.partner(f.tenant, 'GET', `/api/partner/v1/webhook-endpoints/${f.endpointId}`)).json().status).toBe('enabled');
  expect((await h.partner(f.tenant, 'GET', `/api/partner/v1/assignments/${f.assignmentId}`)).json().status).toBe('marking');
  const { rows } = await h.pool.query('SELECT role, removed_at FROM staff WHERE id = $1', [f.staffId]);
  expect(rows[0]).toEqual({ role: 'viewer', removed_at: null });
  const domains = await h.pool.query('SELECT domain FROM callback_domains WHERE institution_id = $1', [f.tenant.institutionId]);
  expect(domains.rows.map((r) => r.domain)).toContain(f.domain);
  const drafts = await h.pool.query('SELECT count(*)::int AS n FROM marking_drafts WHERE assignment_id = $1', [f.assignmentId]);
  expect(drafts.rows[0].n).toBe(0);
  const keys = await h.pool.query('SELECT count(*)::int AS n FROM api_keys WHERE institution_id = $1', [f.tenant.institutionId]);
  expect(keys.rows[0].n).toBe(1);
  const lti = await h.admin('GET', `/api/admin/v1/institutions/${f.tenant.institutionId}/lti-platforms`);
  expect(lti.json().data.map((p: { ltiPlatformId: string; deploymentIds: string[] }) => [p.ltiPlatformId, p.deploymentIds])).toEqual([[f.ltiPlatformId, ['deployment-1']]]);
}
const expectBUntouched = () => expectUntouched(b);

function send(route: Route, user: PortalUser | null, f: Fixtures, extra: Record<string, string> = {}, headers: Record<string, string> = {}) {
  return route.method === 'GET'
    ? portalGet(h, user, `${route.url(f)}${extra.institution ? `?institution=${extra.institution}` : ''}`, headers)
    : portalPost(h, user, route.url(f), { ...(route.fields?.(f) ?? {}), ...extra }, headers);
}

describe('the route table', () => {
  it('covers every page route the portal registers', async () => {
    const registered: string[] = [];
    const probe = createHttp({ logLevel: 'silent', logger: false });
    probe.addHook('onRoute', (r: RouteOptions) => {
      for (const m of [r.method].flat()) if (m !== 'HEAD') registered.push(`${m} ${r.url}`);
    });
    await probe.register(portalRoutes, { ctx: h.ctx });
    await probe.ready();
    await probe.close();
    const pages = registered.filter((r) => r.split(' ')[1]!.startsWith('/portal') && !NOT_PAGE_GROUPS.test(r.split(' ')[1]!)).map((r) => r.replace(/\/$/, '') || r);
    const table = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect([...new Set(pages)].sort()).toEqual([...table].sort());
  });
});

describe('signed out', () => {
  it.each(ROUTES.filter((r) => r.method === 'GET').map((r) => [r.path, r] as const))('GET %s sends the visitor to sign in', async (_p, route) => {
    const res = await send(route, null, a);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(/^\/portal\/sign-in\?next=/);
  });

  it.each(ROUTES.filter((r) => r.method === 'POST').map((r) => [r.path, r] as const))('POST %s is refused and changes nothing', async (_p, route) => {
    const res = await send(route, null, b);
    expect([303, 403]).toContain(res.statusCode);
    if (res.statusCode === 303) expect(res.headers.location).toMatch(/^\/portal\/sign-in/);
    await expectBUntouched();
  });
});

describe.each(['admin', 'author', 'reviewer', 'viewer'] as const)('a %s of institution A', (role) => {
  const denied = () => ROUTES.filter((r) => !ROLE_PERMISSIONS[role].includes(r.permission));
  it('gets 403 on every route their role does not allow, and nothing changes', async () => {
    for (const route of denied()) {
      const res = await send(route, users[role], a);
      expect(res.statusCode, `${route.method} ${route.path}`).toBe(403);
      expect(res.body).toContain('You do not have access to this page');
    }
    await expectUntouched(a);
  });

  it("gets 404 on every route naming institution B's objects, and nothing of B changes", async () => {
    for (const route of ROUTES.filter((r) => r.owned && ROLE_PERMISSIONS[role].includes(r.permission))) {
      const res = await send(route, users[role], b);
      expect(res.statusCode, `${route.method} ${route.path}`).toBe(404);
      expect(res.body).toContain('Page not found');
    }
    await expectBUntouched();
  });

  it('cannot reach institution B by naming it in the query or the form', async () => {
    const keys = await portalGet(h, users[role], `/portal/callback-domains?institution=${h.b.institutionId}`);
    expect(keys.statusCode).toBe(200);
    expect(keys.body).toContain('Alpha College');
    expect(keys.body).not.toContain(b.domain);
  });
});

describe('an operator', () => {
  it("opens every page of institution B and B's objects", async () => {
    for (const route of ROUTES.filter((r) => r.method === 'GET')) {
      const res = await send(route, users.operator, b, { institution: h.b.institutionId });
      expect(res.statusCode, `${route.path}: ${res.body.slice(0, 300)}`).toBe(200);
    }
  });
});

describe('CSRF', () => {
  it('refuses a form without the session token, with another token, or sent from another site, and nothing changes', async () => {
    const route = ROUTES.find((r) => r.path === '/portal/callback-domains/remove')!;
    for (const [fields, headers] of [
      [{ csrf: '' }, {}],
      [{ csrf: users.admin.csrf.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a')) }, {}],
      [{}, { 'sec-fetch-site': 'cross-site' }],
    ] as Array<[Record<string, string>, Record<string, string>]>) {
      const res = await send(route, users.admin, a, fields, headers);
      expect(res.statusCode).toBe(403);
      expect(res.body).toContain('This form has expired');
    }
    const domains = await h.pool.query('SELECT domain FROM callback_domains WHERE institution_id = $1', [h.a.institutionId]);
    expect(domains.rows.map((r) => r.domain)).toContain(a.domain);
  });
});
