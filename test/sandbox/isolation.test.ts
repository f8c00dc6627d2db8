import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { looksLikeApiKey } from '../../src/modules/institutions/api-keys.js';
import { redactUrl } from '../../src/platform/log/redact-url.js';
import { assignmentBody, createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { testModeTenant } from '../helpers/test-mode.js';

/**
 * Test mode is a separate world in the same institution: every partner route
 * answers a live key about live objects only and a test key about test ones,
 * 404 for the other mode's ids and lists without them.
 */
let h: Harness;
let live: Tenant;
let test: Tenant;
const P = '/api/partner/v1';

beforeAll(async () => {
  h = await createHarness({ config: { allowInsecureUrls: true } });
  live = h.a;
  test = await testModeTenant(h, h.a);
});
afterAll(() => h?.close());

async function create(t: Tenant, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await h.partner(t, 'POST', `${P}/assignments`, assignmentBody(t, overrides));
  expect(res.statusCode, res.body).toBe(201);
  return res.json().assignmentId;
}

describe('test-mode API keys', () => {
  it('the operator API creates a key of each mode and lists its mode; live is the default', async () => {
    expect(test.apiKey).toMatch(/^ak_test_[0-9A-Za-z]{40}$/);
    const plain = await h.admin('POST', `/api/admin/v1/institutions/${live.institutionId}/api-keys`, { label: 'plain' });
    expect(plain.statusCode).toBe(201);
    expect(plain.json()).toMatchObject({ mode: 'live' });
    expect(plain.json().apiKey).toMatch(/^ak_live_/);
    const listed = (await h.admin('GET', `/api/admin/v1/institutions/${live.institutionId}/api-keys`)).json().data;
    expect(listed.find((k: { keyId: string }) => k.keyId === test.keyId)).toMatchObject({ mode: 'test', prefix: test.apiKey.slice(0, 12) });
    expect(listed.find((k: { keyId: string }) => k.keyId === live.keyId)).toMatchObject({ mode: 'live' });
  });

  it('refuses an unknown mode with 400 and creates nothing', async () => {
    const before = (await h.admin('GET', `/api/admin/v1/institutions/${live.institutionId}/api-keys`)).json().data.length;
    const res = await h.admin('POST', `/api/admin/v1/institutions/${live.institutionId}/api-keys`, { mode: 'sandbox' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect((await h.admin('GET', `/api/admin/v1/institutions/${live.institutionId}/api-keys`)).json().data.length).toBe(before);
  });

  it('key format checks, unknown test keys and log redaction know ak_test_', async () => {
    expect(looksLikeApiKey(test.apiKey)).toBe(true);
    expect(looksLikeApiKey(`ak_demo_${'a'.repeat(40)}`)).toBe(false);
    const unknown = `ak_test_${'Z'.repeat(40)}`;
    for (let i = 0; i < 2; i++) {
      const res = await h.partner(unknown, 'GET', `${P}/tests`);
      expect(res.statusCode).toBe(401);
    }
    expect(redactUrl(`/api/partner/v1/tests?k=${test.apiKey}`)).toBe('/api/partner/v1/tests?k=[redacted]');
  });

  it('a revoked test key stops working on the next request', async () => {
    const extra = await testModeTenant(h, h.b);
    expect((await h.partner(extra, 'GET', `${P}/tests`)).statusCode).toBe(200);
    expect((await h.admin('DELETE', `/api/admin/v1/institutions/${h.b.institutionId}/api-keys/${extra.keyId}`)).statusCode).toBe(204);
    expect((await h.partner(extra, 'GET', `${P}/tests`)).statusCode).toBe(401);
  });
});

describe('isolation between live and test mode', () => {
  let liveId: string;
  let testId: string;

  beforeAll(async () => {
    liveId = await create(live, { externalUserId: 'live-user' });
    testId = await create(test, { externalUserId: 'test-user' });
  });

  it('the same published tests are listed in both modes', async () => {
    const a = (await h.partner(live, 'GET', `${P}/tests`)).json();
    const b = (await h.partner(test, 'GET', `${P}/tests`)).json();
    expect(b).toEqual(a);
    expect(a.total).toBeGreaterThan(0);
  });

  it('each mode reads its own assignment; the other mode\'s id is 404 on every assignment route', async () => {
    expect((await h.partner(live, 'GET', `${P}/assignments/${liveId}`)).statusCode).toBe(200);
    expect((await h.partner(test, 'GET', `${P}/assignments/${testId}`)).statusCode).toBe(200);
    const routes: Array<[string, (id: string) => string, unknown?]> = [
      ['GET', (id) => `${P}/assignments/${id}`],
      ['GET', (id) => `${P}/assignments/${id}/proctoring`],
      ['PATCH', (id) => `${P}/assignments/${id}`, { dueAt: new Date(Date.now() + 86_400_000).toISOString() }],
      ['POST', (id) => `${P}/assignments/${id}/start-link`],
      ['POST', (id) => `${P}/assignments/${id}/cancel`],
    ];
    for (const [method, url, body] of routes) {
      for (const [key, id] of [
        [live, testId],
        [test, liveId],
      ] as const) {
        const res = await h.partner(key, method, url(id), body);
        expect(res.statusCode, `${method} ${url(id)} with the other mode's key`).toBe(404);
        expect(res.json().error.code).toBe('not_found');
      }
    }
    // Nothing was changed by the refused calls.
    expect((await h.partner(live, 'GET', `${P}/assignments/${liveId}`)).json()).toMatchObject({ status: 'assigned', dueAt: null });
    expect((await h.partner(test, 'GET', `${P}/assignments/${testId}`)).json()).toMatchObject({ status: 'assigned', dueAt: null });
  });

  it('controls work within the mode: PATCH, start-link and proctoring on a test-mode assignment', async () => {
    const dueAt = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const patched = await h.partner(test, 'PATCH', `${P}/assignments/${testId}`, { dueAt });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().dueAt).toBe(dueAt);
    expect((await h.partner(test, 'POST', `${P}/assignments/${testId}/start-link`)).statusCode).toBe(200);
    expect((await h.partner(test, 'GET', `${P}/assignments/${testId}/proctoring`)).statusCode).toBe(200);
  });

  it('events carry livemode, are listed per mode, and the other mode\'s event is 404', async () => {
    // assignment.updated, one per mode.
    const dueAt = new Date(Date.now() + 5 * 86_400_000).toISOString();
    expect((await h.partner(live, 'PATCH', `${P}/assignments/${liveId}`, { dueAt })).statusCode).toBe(200);
    const liveEvents = (await h.partner(live, 'GET', `${P}/events`)).json().data as Array<{ id: string; livemode: boolean; data: { partnerAssignmentId: string } }>;
    const testEvents = (await h.partner(test, 'GET', `${P}/events`)).json().data as typeof liveEvents;
    expect(liveEvents.length).toBeGreaterThan(0);
    expect(testEvents.length).toBeGreaterThan(0);
    expect(liveEvents.every((e) => e.livemode === true && e.data.partnerAssignmentId !== testId)).toBe(true);
    expect(testEvents.every((e) => e.livemode === false && e.data.partnerAssignmentId === testId)).toBe(true);

    const liveEvent = liveEvents[0]!.id;
    const testEvent = testEvents[0]!.id;
    expect((await h.partner(test, 'GET', `${P}/events/${testEvent}`)).json()).toMatchObject({ id: testEvent, livemode: false });
    expect((await h.partner(live, 'GET', `${P}/events/${liveEvent}`)).json()).toMatchObject({ id: liveEvent, livemode: true });
    for (const [key, id] of [
      [live, testEvent],
      [test, liveEvent],
    ] as const) {
      expect((await h.partner(key, 'GET', `${P}/events/${id}`)).statusCode).toBe(404);
      expect((await h.partner(key, 'POST', `${P}/events/${id}/redeliver`, {})).statusCode).toBe(404);
      expect((await h.partner(key, 'GET', `${P}/events?startingAfter=${id}`)).statusCode).toBe(400);
    }
    // Filtering by the other mode's assignment finds nothing.
    expect((await h.partner(live, 'GET', `${P}/events?assignmentId=${testId}`)).json().data).toEqual([]);
  });

  it('webhook endpoints are per mode: the other mode\'s endpoint is 404 on every endpoint route and missing from lists', async () => {
    const created = await h.partner(test, 'POST', `${P}/webhook-endpoints`, { url: 'http://127.0.0.1:9/test-hook' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().livemode).toBe(false);
    const testEndpoint = created.json().endpointId as string;
    const liveCreated = await h.partner(live, 'POST', `${P}/webhook-endpoints`, { url: 'http://127.0.0.1:9/live-hook' });
    expect(liveCreated.json().livemode).toBe(true);
    const liveEndpoint = liveCreated.json().endpointId as string;

    const ids = (t: Tenant) => h.partner(t, 'GET', `${P}/webhook-endpoints`).then((r) => r.json().data.map((e: { endpointId: string }) => e.endpointId));
    expect(await ids(test)).toEqual([testEndpoint]);
    expect(await ids(live)).toEqual([liveEndpoint]);

    for (const [key, id] of [
      [live, testEndpoint],
      [test, liveEndpoint],
    ] as const) {
      for (const [method, url, body] of [
        ['GET', `${P}/webhook-endpoints/${id}`],
        ['PATCH', `${P}/webhook-endpoints/${id}`, { description: 'changed' }],
        ['POST', `${P}/webhook-endpoints/${id}/rotate-secret`],
        ['POST', `${P}/webhook-endpoints/${id}/test`],
        ['DELETE', `${P}/webhook-endpoints/${id}`],
      ] as Array<[string, string, unknown?]>) {
        const res = await h.partner(key, method, url, body);
        expect(res.statusCode, `${method} ${url}`).toBe(404);
      }
    }
    // Redelivering a live event to a test endpoint (or the other way round) is refused too.
    const liveEvent = (await h.partner(live, 'GET', `${P}/events`)).json().data[0].id;
    expect((await h.partner(live, 'POST', `${P}/events/${liveEvent}/redeliver`, { endpointId: testEndpoint })).statusCode).toBe(404);
    expect((await h.partner(test, 'GET', `${P}/webhook-endpoints/${testEndpoint}`)).json().description).toBeNull();
  });

  it('an Idempotency-Key is scoped per mode: the same key with each mode creates two assignments', async () => {
    const key = 'same-key-both-modes';
    const a = await h.partner(live, 'POST', `${P}/assignments`, assignmentBody(live, { externalUserId: 'idem-live' }), { 'idempotency-key': key });
    const b = await h.partner(test, 'POST', `${P}/assignments`, assignmentBody(test, { externalUserId: 'idem-test' }), { 'idempotency-key': key });
    expect(a.statusCode).toBe(201);
    expect(b.statusCode, b.body).toBe(201);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.json().assignmentId).not.toBe(a.json().assignmentId);
    // And each replays within its own mode.
    const again = await h.partner(test, 'POST', `${P}/assignments`, assignmentBody(test, { externalUserId: 'idem-test' }), { 'idempotency-key': key });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().assignmentId).toBe(b.json().assignmentId);
  });

  it('cancel works within the mode and not across it', async () => {
    const res = await h.partner(test, 'POST', `${P}/assignments/${testId}/cancel`);
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('cancelled');
    expect((await h.partner(live, 'GET', `${P}/assignments/${liveId}`)).json().status).toBe('assigned');
  });

  it('another institution\'s test key sees none of this institution\'s test data', async () => {
    const other = await testModeTenant(h, h.b);
    expect((await h.partner(other, 'GET', `${P}/assignments/${testId}`)).statusCode).toBe(404);
    expect((await h.partner(other, 'GET', `${P}/events`)).json().data).toEqual([]);
    expect((await h.partner(other, 'GET', `${P}/webhook-endpoints`)).json().data).toEqual([]);
  });
});
