import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { detailFields, expectError } from '../helpers/expect-error.js';

/** Endpoint management over the partner and operator APIs, with URL rules enforced (ASSAY_ALLOW_INSECURE_URLS off). */
let h: Harness;
const P = '/api/partner/v1/webhook-endpoints';
const A = '/api/admin/v1/webhook-endpoints';

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

async function create(body: Record<string, unknown>, tenant = h.a) {
  const res = await h.partner(tenant, 'POST', P, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('webhook endpoints (partner API)', () => {
  it('creates an endpoint and shows its whsec_ secret only in the creation response', async () => {
    const res = await h.partner(h.a, 'POST', P, { url: 'https://hooks.alpha.example/assay', description: 'LMS' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(
      ['createdAt', 'description', 'disabledAt', 'disabledReason', 'endpointId', 'eventTypes', 'failingSince', 'livemode', 'secret', 'status', 'updatedAt', 'url'].sort(),
    );
    expect(body).toMatchObject({ url: 'https://hooks.alpha.example/assay', description: 'LMS', eventTypes: null, status: 'enabled', disabledReason: null });
    expect(body.endpointId).toMatch(/^whep_[0-9A-Za-z]{22}$/);
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const keyBytes = Buffer.from(body.secret.slice('whsec_'.length), 'base64').length;
    expect(keyBytes).toBeGreaterThanOrEqual(24);
    expect(keyBytes).toBeLessThanOrEqual(64);

    const read = await h.partner(h.a, 'GET', `${P}/${body.endpointId}`);
    expect(read.statusCode).toBe(200);
    expect(read.json().secret).toBeUndefined();
    expect(read.body).not.toContain(body.secret.slice(6, 20));
    const list = await h.partner(h.a, 'GET', P);
    expect(list.json().data.find((e: { endpointId: string }) => e.endpointId === body.endpointId)).toBeDefined();
    expect(list.body).not.toContain(body.secret.slice(6, 20));
  });

  it('stores the secret encrypted, not as the text shown to the partner', async () => {
    const body = await create({ url: 'https://hooks.alpha.example/sealed' });
    const { rows } = await h.pool.query('SELECT secret_enc FROM webhook_endpoints WHERE id = $1', [body.endpointId]);
    expect(rows[0].secret_enc).not.toContain(body.secret.slice(6));
    expect(rows[0].secret_enc).toMatch(/^v2\.[0-9a-f]{8}\./);
  });

  it('keeps the subscribed event types, without duplicates', async () => {
    const body = await create({ url: 'https://hooks.alpha.example/typed', eventTypes: ['exam.completed', 'grading.done', 'exam.completed'] });
    expect(body.eventTypes).toEqual(['exam.completed', 'grading.done']);
  });

  it.each([
    [{ url: 'https://hooks.alpha.example/x', eventTypes: [] }, 'eventTypes'],
    [{ url: 'https://hooks.alpha.example/x', eventTypes: ['exam.finished'] }, 'eventTypes.0'],
    [{ url: 'https://hooks.alpha.example/x', eventTypes: ['webhook.test'] }, 'eventTypes.0'],
    [{ url: 'https://hooks.alpha.example/x', secret: 'whsec_mine' }, 'secret'],
    [{}, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{ url: `https://hooks.alpha.example/${'x'.repeat(2100)}` }, 'url'],
  ])('refuses a malformed body %j with 400 naming the field', async (body, field) => {
    const res = await h.partner(h.a, 'POST', P, body);
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res).some((f) => f.startsWith(field))).toBe(true);
  });

  it.each([
    'http://hooks.alpha.example/plain-http',
    'https://user:pw@hooks.alpha.example/creds',
    'https://hooks.alpha.example/frag#x',
    'https://127.0.0.1/loopback',
    'https://0x7f.1/loopback-in-hex',
    'https://10.1.2.3/private',
    'https://172.16.5.4/private',
    'https://192.168.0.10/private',
    'https://100.64.0.1/cgnat',
    'https://169.254.169.254/latest/meta-data',
    'https://169.254.10.1/link-local',
    'https://0.0.0.0/unspecified',
    'https://[::1]/v6-loopback',
    'https://[fc00::1]/unique-local',
    'https://[fd12:3456::1]/unique-local',
    'https://[fe80::1]/v6-link-local',
    'https://[::ffff:10.0.0.1]/v4-mapped-private',
    'https://localhost/name',
    'https://api.localhost/name',
    'https://metadata.google.internal/computeMetadata',
    'https://intranet/single-label',
  ])('refuses %s with 422 webhook_url_not_allowed and stores nothing', async (url) => {
    const before = await h.pool.query('SELECT count(*)::int AS n FROM webhook_endpoints');
    const res = await h.partner(h.a, 'POST', P, { url });
    const body = expectError(res, 422, 'webhook_url_not_allowed');
    expect(body.error.details?.[0]?.field).toBe('url');
    const after = await h.pool.query('SELECT count(*)::int AS n FROM webhook_endpoints');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('applies the same URL rules to PATCH', async () => {
    const body = await create({ url: 'https://hooks.alpha.example/patch-rules' });
    expectError(await h.partner(h.a, 'PATCH', `${P}/${body.endpointId}`, { url: 'https://169.254.169.254/' }), 422, 'webhook_url_not_allowed');
    expect((await h.partner(h.a, 'GET', `${P}/${body.endpointId}`)).json().url).toBe('https://hooks.alpha.example/patch-rules');
  });

  it('updates url, event types and description, and disables and enables', async () => {
    const body = await create({ url: 'https://hooks.alpha.example/v1', description: 'old' });
    const patched = await h.partner(h.a, 'PATCH', `${P}/${body.endpointId}`, {
      url: 'https://hooks.alpha.example/v2',
      eventTypes: ['exam.started'],
      description: null,
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ url: 'https://hooks.alpha.example/v2', eventTypes: ['exam.started'], description: null, status: 'enabled' });

    const disabled = await h.partner(h.a, 'PATCH', `${P}/${body.endpointId}`, { status: 'disabled' });
    expect(disabled.json()).toMatchObject({ status: 'disabled', disabledReason: 'partner' });
    expect(disabled.json().disabledAt).not.toBeNull();
    const enabled = await h.partner(h.a, 'PATCH', `${P}/${body.endpointId}`, { status: 'enabled', eventTypes: null });
    expect(enabled.json()).toMatchObject({ status: 'enabled', disabledReason: null, disabledAt: null, eventTypes: null });
  });

  it('refuses an empty PATCH and unknown fields', async () => {
    const body = await create({ url: 'https://hooks.alpha.example/empty-patch' });
    expectError(await h.partner(h.a, 'PATCH', `${P}/${body.endpointId}`, {}), 400, 'invalid_request');
    expectError(await h.partner(h.a, 'PATCH', `${P}/${body.endpointId}`, { status: 'paused' }), 400, 'invalid_request');
    expectError(await h.partner(h.a, 'PATCH', `${P}/${body.endpointId}`, { secret: 'x' }), 400, 'invalid_request');
  });

  it('deletes an endpoint: 204, then 404', async () => {
    const body = await create({ url: 'https://hooks.alpha.example/doomed' });
    const del = await h.partner(h.a, 'DELETE', `${P}/${body.endpointId}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expectError(await h.partner(h.a, 'GET', `${P}/${body.endpointId}`), 404, 'not_found');
    expectError(await h.partner(h.a, 'DELETE', `${P}/${body.endpointId}`), 404, 'not_found');
  });

  it('rotates the secret: a new whsec_ secret, the previous one valid for 24 hours', async () => {
    const body = await create({ url: 'https://hooks.alpha.example/rotating' });
    const before = Date.now();
    const res = await h.partner(h.a, 'POST', `${P}/${body.endpointId}/rotate-secret`);
    expect(res.statusCode).toBe(200);
    const rotated = res.json();
    expect(rotated.endpointId).toBe(body.endpointId);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(body.secret);
    const overlap = Date.parse(rotated.previousSecretExpiresAt) - before;
    expect(overlap).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(overlap).toBeLessThanOrEqual(24 * 3600_000 + 60_000);
  });

  it('sends a test event on request, and refuses it for a disabled endpoint', async () => {
    const body = await create({ url: 'https://hooks.alpha.example/testing', eventTypes: ['grading.done'] });
    const res = await h.partner(h.a, 'POST', `${P}/${body.endpointId}/test`);
    expect(res.statusCode).toBe(202);
    const { eventId } = res.json();
    const event = await h.partner(h.a, 'GET', `/api/partner/v1/events/${eventId}`);
    expect(event.json()).toMatchObject({ id: eventId, type: 'webhook.test', data: { endpointId: body.endpointId } });
    expect(event.json().deliveries).toMatchObject([{ endpointId: body.endpointId, status: 'pending' }]);

    await h.partner(h.a, 'PATCH', `${P}/${body.endpointId}`, { status: 'disabled' });
    expectError(await h.partner(h.a, 'POST', `${P}/${body.endpointId}/test`), 409, 'invalid_state');
  });

  it('caps an institution at 20 endpoints with 409', async () => {
    const t = await h.createTenant('Many Hooks');
    for (let i = 0; i < 20; i++) await create({ url: `https://hooks.many-hooks.example/${i}` }, t);
    expectError(await h.partner(t, 'POST', P, { url: 'https://hooks.many-hooks.example/21' }), 409, 'invalid_state');
    const list = await h.partner(t, 'GET', `${P}?limit=5&offset=18`);
    expect(list.json()).toMatchObject({ total: 20, limit: 5, offset: 18 });
    expect(list.json().data).toHaveLength(2);
  });

  it("never shows or touches another institution's endpoint (404, as for a missing one)", async () => {
    const mine = await create({ url: 'https://hooks.alpha.example/private-to-a' });
    const id = mine.endpointId;
    expectError(await h.partner(h.b, 'GET', `${P}/${id}`), 404, 'not_found');
    expectError(await h.partner(h.b, 'PATCH', `${P}/${id}`, { status: 'disabled' }), 404, 'not_found');
    expectError(await h.partner(h.b, 'POST', `${P}/${id}/rotate-secret`), 404, 'not_found');
    expectError(await h.partner(h.b, 'POST', `${P}/${id}/test`), 404, 'not_found');
    expectError(await h.partner(h.b, 'DELETE', `${P}/${id}`), 404, 'not_found');
    const listB = await h.partner(h.b, 'GET', P);
    expect(listB.json().data.map((e: { endpointId: string }) => e.endpointId)).not.toContain(id);
    expect((await h.partner(h.a, 'GET', `${P}/${id}`)).json()).toMatchObject({ status: 'enabled', url: 'https://hooks.alpha.example/private-to-a' });
  });

  it('requires an API key on every endpoint route', async () => {
    for (const [method, url] of [['GET', P], ['POST', P], ['GET', `${P}/whep_x`], ['POST', `${P}/whep_x/rotate-secret`]]) {
      expectError(await h.partner(null, method!, url!), 401, 'unauthenticated');
    }
  });
});

describe('webhook endpoints (operator API)', () => {
  it('lists every institution’s endpoints, filtered by institution and status', async () => {
    const b = await create({ url: 'https://hooks.beta.example/ops' }, h.b);
    const all = await h.admin('GET', `${A}?limit=100`);
    expect(all.statusCode).toBe(200);
    const institutions = new Set(all.json().data.map((e: { institutionId: string }) => e.institutionId));
    expect(institutions.has(h.a.institutionId) && institutions.has(h.b.institutionId)).toBe(true);
    const onlyB = await h.admin('GET', `${A}?institutionId=${h.b.institutionId}`);
    expect(onlyB.json().data.map((e: { endpointId: string }) => e.endpointId)).toEqual([b.endpointId]);
    expect(onlyB.body).not.toContain('whsec_');
  });

  it('disables an endpoint so that the partner cannot enable it; the operator can', async () => {
    const e = await create({ url: 'https://hooks.alpha.example/operated' });
    const off = await h.admin('POST', `${A}/${e.endpointId}/disable`);
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({ status: 'disabled', disabledReason: 'operator', institutionId: h.a.institutionId });
    expect((await h.partner(h.a, 'GET', `${P}/${e.endpointId}`)).json()).toMatchObject({ status: 'disabled', disabledReason: 'operator' });
    expectError(await h.partner(h.a, 'PATCH', `${P}/${e.endpointId}`, { status: 'enabled' }), 409, 'invalid_state');
    const disabledList = await h.admin('GET', `${A}?status=disabled&institutionId=${h.a.institutionId}`);
    expect(disabledList.json().data.map((x: { endpointId: string }) => x.endpointId)).toContain(e.endpointId);
    const on = await h.admin('POST', `${A}/${e.endpointId}/enable`);
    expect(on.json()).toMatchObject({ status: 'enabled', disabledReason: null });
  });

  it('requires the operator token and answers 404 for an unknown endpoint', async () => {
    const res = await h.app.inject({ method: 'GET', url: A });
    expectError(res, 401, 'unauthenticated');
    expectError(await h.partner(h.a, 'GET', A), 401, 'unauthenticated');
    expectError(await h.admin('POST', `${A}/whep_missing/disable`), 404, 'not_found');
  });
});

describe('OpenAPI', () => {
  it('documents the webhook and events routes in the partner document, and the operator ones only in the operator document', async () => {
    const partner = (await h.app.inject({ method: 'GET', url: '/api/partner/v1/openapi.json' })).json();
    for (const p of ['/api/partner/v1/webhook-endpoints', '/api/partner/v1/webhook-endpoints/{endpointId}/rotate-secret', '/api/partner/v1/events', '/api/partner/v1/events/{eventId}/redeliver']) {
      expect(Object.keys(partner.paths)).toContain(p);
    }
    expect(Object.keys(partner.paths).some((p) => p.startsWith('/api/admin'))).toBe(false);
    const admin = (await h.admin('GET', '/api/admin/v1/openapi.json')).json();
    expect(Object.keys(admin.paths)).toContain('/api/admin/v1/webhook-endpoints/{endpointId}/disable');
  });
});
