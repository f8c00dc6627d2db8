import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/platform/db.js';
import { applyTransition } from '../../src/modules/lifecycle/apply-transition.js';
import { assignmentBody, createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';

/**
 * Tenant isolation and authentication over every partner route, driven by a
 * route table. Institution A owns the fixtures; B attacks them with its own
 * valid key. Adding a partner route means adding one row to ROUTES: the
 * coverage test fails until every route in the OpenAPI document has a row.
 */
const P = '/api/partner/v1';

interface Fixtures {
  testId: string;
  assignmentId: string;
  endpointId: string;
  eventId: string;
  /** A's test-mode key and a test-mode assignment of A, for the test-mode routes. */
  testKey: string;
  testAssignmentId: string;
}

interface Req {
  method: string;
  url: string;
  body?: unknown;
}

type Foreign =
  /** B's key on A's object: 404, byte-identical (but for the request id) to an unknown id. */
  | { kind: 'not_found'; unknown: (fx: Fixtures) => Req }
  /** B's listing never shows A's objects. */
  | { kind: 'listing'; ids: (fx: Fixtures) => string[] }
  /** B's create naming A's object is refused. */
  | { kind: 'refused'; status: number; code: string };

interface RouteCase {
  /** As in the OpenAPI document. */
  method: string;
  path: string;
  /** The request on A's fixtures. */
  req: (fx: Fixtures) => Req;
  /** Status for A's own key (the positive control). */
  ownerStatus: number;
  /** A's key for the positive control when not its live key (test-mode routes). */
  ownerKey?: (fx: Fixtures) => string;
  foreign: Foreign;
}

const UNKNOWN = { assignment: 'asg_0000000000000000000000', endpoint: 'whep_0000000000000000000000', event: 'evt_0000000000000000000000' };

const ROUTES: RouteCase[] = [
  {
    method: 'GET',
    path: `${P}/tests`,
    req: () => ({ method: 'GET', url: `${P}/tests?limit=100` }),
    ownerStatus: 200,
    foreign: { kind: 'listing', ids: (fx) => [fx.testId] },
  },
  {
    method: 'POST',
    path: `${P}/assignments`,
    req: (fx) => ({ method: 'POST', url: `${P}/assignments`, body: { ...assignmentBody(tenantB(), { testId: fx.testId }) } }),
    ownerStatus: 201,
    foreign: { kind: 'refused', status: 422, code: 'test_not_available' },
  },
  {
    method: 'GET',
    path: `${P}/assignments/{assignmentId}`,
    req: (fx) => ({ method: 'GET', url: `${P}/assignments/${fx.assignmentId}` }),
    ownerStatus: 200,
    foreign: { kind: 'not_found', unknown: () => ({ method: 'GET', url: `${P}/assignments/${UNKNOWN.assignment}` }) },
  },
  {
    method: 'PATCH',
    path: `${P}/assignments/{assignmentId}`,
    req: (fx) => ({ method: 'PATCH', url: `${P}/assignments/${fx.assignmentId}`, body: { accommodations: { extraTimeMinutes: 5 } } }),
    ownerStatus: 200,
    foreign: {
      kind: 'not_found',
      unknown: () => ({ method: 'PATCH', url: `${P}/assignments/${UNKNOWN.assignment}`, body: { accommodations: { extraTimeMinutes: 5 } } }),
    },
  },
  {
    method: 'POST',
    path: `${P}/assignments/{assignmentId}/start-link`,
    req: (fx) => ({ method: 'POST', url: `${P}/assignments/${fx.assignmentId}/start-link` }),
    ownerStatus: 200,
    foreign: { kind: 'not_found', unknown: () => ({ method: 'POST', url: `${P}/assignments/${UNKNOWN.assignment}/start-link` }) },
  },
  {
    method: 'GET',
    path: `${P}/assignments/{assignmentId}/proctoring`,
    req: (fx) => ({ method: 'GET', url: `${P}/assignments/${fx.assignmentId}/proctoring` }),
    ownerStatus: 200,
    foreign: { kind: 'not_found', unknown: () => ({ method: 'GET', url: `${P}/assignments/${UNKNOWN.assignment}/proctoring` }) },
  },
  {
    method: 'GET',
    path: `${P}/events`,
    req: (fx) => ({ method: 'GET', url: `${P}/events?limit=100&assignmentId=${fx.assignmentId}` }),
    ownerStatus: 200,
    foreign: { kind: 'listing', ids: (fx) => [fx.eventId, fx.assignmentId] },
  },
  {
    method: 'GET',
    path: `${P}/events/{eventId}`,
    req: (fx) => ({ method: 'GET', url: `${P}/events/${fx.eventId}` }),
    ownerStatus: 200,
    foreign: { kind: 'not_found', unknown: () => ({ method: 'GET', url: `${P}/events/${UNKNOWN.event}` }) },
  },
  {
    method: 'POST',
    path: `${P}/events/{eventId}/redeliver`,
    req: (fx) => ({ method: 'POST', url: `${P}/events/${fx.eventId}/redeliver`, body: {} }),
    ownerStatus: 202,
    foreign: { kind: 'not_found', unknown: () => ({ method: 'POST', url: `${P}/events/${UNKNOWN.event}/redeliver`, body: {} }) },
  },
  {
    method: 'POST',
    path: `${P}/webhook-endpoints`,
    req: () => ({ method: 'POST', url: `${P}/webhook-endpoints`, body: { url: 'https://hooks.isolation.example/new' } }),
    ownerStatus: 201,
    // Nothing of A's is named in a create; what B creates must not appear in A's list (checked below).
    foreign: { kind: 'refused', status: 201, code: '' },
  },
  {
    method: 'GET',
    path: `${P}/webhook-endpoints`,
    req: () => ({ method: 'GET', url: `${P}/webhook-endpoints?limit=100` }),
    ownerStatus: 200,
    foreign: { kind: 'listing', ids: (fx) => [fx.endpointId] },
  },
  {
    method: 'GET',
    path: `${P}/webhook-endpoints/{endpointId}`,
    req: (fx) => ({ method: 'GET', url: `${P}/webhook-endpoints/${fx.endpointId}` }),
    ownerStatus: 200,
    foreign: { kind: 'not_found', unknown: () => ({ method: 'GET', url: `${P}/webhook-endpoints/${UNKNOWN.endpoint}` }) },
  },
  {
    method: 'PATCH',
    path: `${P}/webhook-endpoints/{endpointId}`,
    req: (fx) => ({ method: 'PATCH', url: `${P}/webhook-endpoints/${fx.endpointId}`, body: { description: 'changed' } }),
    ownerStatus: 200,
    foreign: {
      kind: 'not_found',
      unknown: () => ({ method: 'PATCH', url: `${P}/webhook-endpoints/${UNKNOWN.endpoint}`, body: { description: 'changed' } }),
    },
  },
  {
    method: 'POST',
    path: `${P}/webhook-endpoints/{endpointId}/rotate-secret`,
    req: (fx) => ({ method: 'POST', url: `${P}/webhook-endpoints/${fx.endpointId}/rotate-secret` }),
    ownerStatus: 200,
    foreign: { kind: 'not_found', unknown: () => ({ method: 'POST', url: `${P}/webhook-endpoints/${UNKNOWN.endpoint}/rotate-secret` }) },
  },
  {
    method: 'POST',
    path: `${P}/webhook-endpoints/{endpointId}/test`,
    req: (fx) => ({ method: 'POST', url: `${P}/webhook-endpoints/${fx.endpointId}/test` }),
    ownerStatus: 202,
    foreign: { kind: 'not_found', unknown: () => ({ method: 'POST', url: `${P}/webhook-endpoints/${UNKNOWN.endpoint}/test` }) },
  },
  {
    method: 'POST',
    path: `${P}/assignments/{assignmentId}/simulate`,
    req: (fx) => ({ method: 'POST', url: `${P}/assignments/${fx.testAssignmentId}/simulate`, body: { action: 'start' } }),
    ownerStatus: 200,
    ownerKey: (fx) => fx.testKey,
    foreign: {
      kind: 'not_found',
      unknown: () => ({ method: 'POST', url: `${P}/assignments/${UNKNOWN.assignment}/simulate`, body: { action: 'start' } }),
    },
  },
  // Destructive: after simulate, whose test-mode assignment it deletes.
  {
    method: 'DELETE',
    path: `${P}/test-data`,
    req: () => ({ method: 'DELETE', url: `${P}/test-data` }),
    ownerStatus: 200,
    ownerKey: (fx) => fx.testKey,
    foreign: { kind: 'not_found', unknown: () => ({ method: 'DELETE', url: `${P}/test-data` }) },
  },
  // Destructive: kept after every other assignment route, so their positive controls find it started.
  {
    method: 'POST',
    path: `${P}/assignments/{assignmentId}/cancel`,
    req: (fx) => ({ method: 'POST', url: `${P}/assignments/${fx.assignmentId}/cancel` }),
    ownerStatus: 200,
    foreign: { kind: 'not_found', unknown: () => ({ method: 'POST', url: `${P}/assignments/${UNKNOWN.assignment}/cancel` }) },
  },
  // Destructive: kept last so the positive controls above still find the endpoint.
  {
    method: 'DELETE',
    path: `${P}/webhook-endpoints/{endpointId}`,
    req: (fx) => ({ method: 'DELETE', url: `${P}/webhook-endpoints/${fx.endpointId}` }),
    ownerStatus: 204,
    foreign: { kind: 'not_found', unknown: () => ({ method: 'DELETE', url: `${P}/webhook-endpoints/${UNKNOWN.endpoint}` }) },
  },
];

let h: Harness;
let fx: Fixtures;
let revokedKey: string;
const tenantB = () => h.b;

function send(key: string | null, r: Req): Promise<LightMyRequestResponse> {
  return h.app.inject({
    method: r.method as 'GET',
    url: r.url,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(r.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(r.body !== undefined ? { payload: JSON.stringify(r.body) } : {}),
  });
}

async function fixturesFor(t: Tenant): Promise<Fixtures> {
  const created = await h.partner(t, 'POST', `${P}/assignments`, assignmentBody(t, { externalUserId: 'isolated-user' }));
  expect(created.statusCode).toBe(201);
  const assignmentId = created.json().assignmentId;
  await withTransaction(h.pool, (tx) => applyTransition(tx, assignmentId, [{ type: 'start' }], h.clock.now()));
  const event = await h.pool.query('SELECT id FROM events WHERE assignment_id = $1', [assignmentId]);
  const endpoint = await h.partner(t, 'POST', `${P}/webhook-endpoints`, { url: 'https://hooks.isolation.example/a' });
  expect(endpoint.statusCode).toBe(201);
  const key = await h.admin('POST', `/api/admin/v1/institutions/${t.institutionId}/api-keys`, { label: 'test mode', mode: 'test' });
  const testKey = key.json().apiKey as string;
  const testCreated = await h.partner(testKey, 'POST', `${P}/assignments`, assignmentBody(t, { externalUserId: 'isolated-test-user' }));
  expect(testCreated.statusCode).toBe(201);
  return {
    testId: t.testId,
    assignmentId,
    endpointId: endpoint.json().endpointId,
    eventId: event.rows[0].id,
    testKey,
    testAssignmentId: testCreated.json().assignmentId,
  };
}

/** The error body without its request id, to compare two refusals. */
const sansRequestId = (r: LightMyRequestResponse) => {
  const { requestId: _ignored, ...rest } = r.json().error;
  return { status: r.statusCode, error: rest };
};

beforeAll(async () => {
  h = await createHarness();
  fx = await fixturesFor(h.a);
  const extra = await h.admin('POST', `/api/admin/v1/institutions/${h.a.institutionId}/api-keys`, { label: 'to revoke' });
  revokedKey = extra.json().apiKey;
  expect((await h.admin('DELETE', `/api/admin/v1/institutions/${h.a.institutionId}/api-keys/${extra.json().keyId}`)).statusCode).toBe(204);
});
afterAll(() => h.close());

describe('the route table', () => {
  it('covers every partner route of the OpenAPI document', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: `${P}/openapi.json` })).json();
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(ROUTES.map((r) => `${r.method} ${r.path}`).sort()).toEqual(documented);
  });
});

describe.each(ROUTES)('$method $path', (route) => {
  it('without Authorization: 401 unauthenticated with WWW-Authenticate', async () => {
    const res = await send(null, route.req(fx));
    expectError(res, 401, 'unauthenticated');
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it('with a malformed key: 401', async () => {
    expectError(await send('not-a-key', route.req(fx)), 401, 'unauthenticated');
  });

  it('with a well-formed unknown key: 401', async () => {
    expectError(await send(`ak_live_${'Q'.repeat(40)}`, route.req(fx)), 401, 'unauthenticated');
  });

  it('with a revoked key: 401', async () => {
    expectError(await send(revokedKey, route.req(fx)), 401, 'unauthenticated');
  });

  it('with the other institution’s key on this institution’s objects: no access, no leak', async () => {
    const res = await send(h.b.apiKey, route.req(fx));
    const f = route.foreign;
    if (f.kind === 'not_found') {
      expectError(res, 404, 'not_found');
      const unknown = await send(h.b.apiKey, f.unknown(fx));
      expect(sansRequestId(res)).toEqual(sansRequestId(unknown));
    } else if (f.kind === 'listing') {
      expect(res.statusCode).toBe(200);
      for (const id of f.ids(fx)) expect(res.body).not.toContain(id);
    } else if (f.code) {
      expectError(res, f.status, f.code);
    } else {
      expect(res.statusCode).toBe(f.status);
    }
    for (const id of [fx.assignmentId, fx.endpointId, fx.eventId, fx.testAssignmentId]) expect(res.body).not.toContain(id);
  });
});

describe('foreign attempts changed nothing of A', () => {
  it('A’s endpoint, assignment and event are as they were, and B’s endpoint is not in A’s list', async () => {
    const endpoint = (await h.partner(h.a, 'GET', `${P}/webhook-endpoints/${fx.endpointId}`)).json();
    expect(endpoint.description).toBeNull();
    expect(endpoint.status).toBe('enabled');
    expect((await h.partner(h.a, 'GET', `${P}/assignments/${fx.assignmentId}`)).json().status).toBe('started');
    const list = (await h.partner(h.a, 'GET', `${P}/webhook-endpoints?limit=100`)).json();
    expect(list.data.map((e: { endpointId: string }) => e.endpointId)).toEqual([fx.endpointId]);
    const deliveries = await h.pool.query('SELECT count(*)::int AS n FROM events WHERE institution_id = $1', [h.a.institutionId]);
    expect(deliveries.rows[0].n).toBe(1);
  });

  it('B cannot redeliver its own event to A’s endpoint', async () => {
    const own = await fixturesFor(h.b);
    const res = await h.partner(h.b, 'POST', `${P}/events/${own.eventId}/redeliver`, { endpointId: fx.endpointId });
    expectError(res, 404, 'not_found');
  });

  it('the same externalUserId in both institutions stays two separate users', async () => {
    const users = await h.pool.query('SELECT institution_id FROM users WHERE external_user_id = $1', ['isolated-user']);
    expect(users.rows.map((r) => r.institution_id).sort()).toEqual([h.a.institutionId, h.b.institutionId].sort());
  });
});

describe('positive controls: A’s own key reaches each route', () => {
  for (const route of ROUTES) {
    it(`${route.method} ${route.path} → ${route.ownerStatus}`, async () => {
      const r = route.req(fx);
      // A creating an assignment uses its own callback domain.
      const req = route.method === 'POST' && route.path === `${P}/assignments` ? { ...r, body: assignmentBody(h.a) } : r;
      const res = await send(route.ownerKey?.(fx) ?? h.a.apiKey, req);
      expect(res.statusCode, res.body).toBe(route.ownerStatus);
    });
  }
});
