import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { auditActions, portalGet, portalPost, signedIn, type PortalUser } from '../helpers/portal.js';
import { newAssignment, transition } from '../helpers/webhook-setup.js';

let h: Harness;
let admin: PortalUser;
beforeAll(async () => {
  h = await createHarness();
  admin = await signedIn(h, 'admin', h.a.institutionId, 'Ada Admin');
});
afterAll(() => h.close());

describe('the portal entrance', () => {
  it('sends a browser from / to the portal, and keeps the JSON 404 for API clients', async () => {
    const browser = await h.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(browser.statusCode).toBe(303);
    expect(browser.headers.location).toBe('/portal');
    const api = await h.app.inject({ method: 'GET', url: '/', headers: { accept: 'application/json' } });
    expect(api.statusCode).toBe(404);
    expect(api.json().error.code).toBe('not_found');
  });

  it('sends a signed-out visitor to the sign-in page, remembering where they were going', async () => {
    const res = await portalGet(h, null, '/portal/assignments?status=marking');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/portal/sign-in?next=${encodeURIComponent('/portal/assignments?status=marking')}`);
  });

  it('shows the overview with the main navigation, landmarks and the strict page headers', async () => {
    const res = await portalGet(h, admin, '/portal');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
    for (const name of ['Overview', 'Assignments', 'Marking', 'API keys', 'Callback domains', 'Webhooks', 'Staff', 'Audit log']) {
      expect(res.body).toContain(`>${name}</a>`);
    }
    expect(res.body).not.toContain('>Institutions</a>');
    expect(res.body).toContain('<main id="main"');
    expect(res.body).toContain('aria-label="Main"');
    expect(res.body).toMatch(/<caption[^>]*>Completions per day/);
    expect(res.body).not.toMatch(/style="/);
  });
});

describe('API keys', () => {
  it('creates a key shown once in full, which then works on the partner API, and revokes it; both audited', async () => {
    const created = await portalPost(h, admin, '/portal/api-keys', { label: 'LMS production' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.headers['cache-control']).toContain('no-store');
    const key = /<code id="new-key"[^>]*>(ak_live_[0-9A-Za-z]+)<\/code>/.exec(created.body)![1]!;
    expect((await h.partner(key, 'GET', '/api/partner/v1/tests')).statusCode).toBe(200);

    const list = await portalGet(h, admin, '/portal/api-keys');
    expect(list.body).toContain(`${key.slice(0, 12)}…`);
    expect(list.body).toContain('LMS production');
    expect(list.body).not.toContain(key);
    const keyId = new RegExp(`/portal/api-keys/(key_[0-9A-Za-z]+)/revoke">Revoke<span class="sr-only"> key ${key.slice(0, 12)}`).exec(list.body)![1]!;

    const confirm = await portalGet(h, admin, `/portal/api-keys/${keyId}/revoke`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('Revoke key');
    const revoked = await portalPost(h, admin, `/portal/api-keys/${keyId}/revoke`);
    expect(revoked.statusCode).toBe(303);
    expect(revoked.headers.location).toBe('/portal/api-keys?done=key-revoked');
    expect((await h.partner(key, 'GET', '/api/partner/v1/tests')).statusCode).toBe(401);

    const entries = (await auditActions(h, h.a.institutionId)).filter((e) => e.object_id === keyId);
    expect(entries.map((e) => [e.action, e.actor_id])).toEqual([
      ['api_key.created', admin.staffId],
      ['api_key.revoked', admin.staffId],
    ]);
    expect(JSON.stringify(entries)).not.toContain(key);
  });
});

describe('callback domains', () => {
  it('adds with the allowlist rules (refusing what is not a host, with the message by its field), removes, and audits both', async () => {
    const bad = await portalPost(h, admin, '/portal/callback-domains', { domain: 'https://lms.alpha.example/path' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('class="error-summary"');
    expect(bad.body).toMatch(/href="#f-domain">&quot;https:\/\/lms.alpha.example\/path&quot; is not a host name/);
    expect(bad.body).toContain('aria-invalid="true"');
    const empty = await portalPost(h, admin, '/portal/callback-domains', { domain: '  ' });
    expect(empty.statusCode).toBe(400);

    const added = await portalPost(h, admin, '/portal/callback-domains', { domain: '*.LMS.Alpha.example' });
    expect(added.statusCode).toBe(303);
    expect(added.headers.location).toBe('/portal/callback-domains?done=domain-added');
    const page = await portalGet(h, admin, added.headers.location as string);
    expect(page.body).toContain('The callback domain was added.');
    expect(page.body).toContain('<code>*.lms.alpha.example</code>');
    // The partner API now admits a callbackUrl on a subdomain.
    const created = await h.partner(h.a, 'POST', '/api/partner/v1/assignments', {
      externalUserId: 'cb-1', testId: h.a.testId, user: { email: 's@example.org' }, callbackUrl: 'https://eu.lms.alpha.example/back',
    });
    expect(created.statusCode, created.body).toBe(201);

    const removed = await portalPost(h, admin, '/portal/callback-domains/remove', { domain: '*.lms.alpha.example' });
    expect(removed.statusCode).toBe(303);
    expect((await portalGet(h, admin, '/portal/callback-domains')).body).not.toContain('*.lms.alpha.example');
    expect((await portalPost(h, admin, '/portal/callback-domains/remove', { domain: '*.lms.alpha.example' })).statusCode).toBe(404);

    const entries = (await auditActions(h, h.a.institutionId)).filter((e) => e.object_id === '*.lms.alpha.example');
    expect(entries.map((e) => e.action)).toEqual(['callback_domain.added', 'callback_domain.removed']);
  });
});

describe('webhooks', () => {
  it('creates an endpoint with its secret shown once, sends a test event into the delivery log, disables, enables, rotates and redelivers; all audited', async () => {
    const refused = await portalPost(h, admin, '/portal/webhooks', { url: 'http://127.0.0.1/hook' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('class="error-summary"');

    const created = await portalPost(h, admin, '/portal/webhooks', { url: 'https://hooks.alpha.example/assay', description: 'LMS', eventTypes: ['exam.completed', 'grading.done'] });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.body).toMatch(/<code id="new-secret"[^>]*>whsec_[A-Za-z0-9+/=]+<\/code>/);
    const endpointId = /\/portal\/webhooks\/(whep_[0-9A-Za-z]+)/.exec(created.body)![1]!;
    const page = await portalGet(h, admin, `/portal/webhooks/${endpointId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('exam.completed, grading.done');
    expect(page.body).not.toContain('whsec_');

    const sent = await portalPost(h, admin, `/portal/webhooks/${endpointId}/test`);
    expect(sent.statusCode).toBe(303);
    const log = await portalGet(h, admin, sent.headers.location as string);
    expect(log.body).toContain('A test event was sent.');
    expect(log.body).toContain('<code>webhook.test</code>');
    const eventId = /<code>(evt_[0-9A-Za-z]+)<\/code>/.exec(log.body)![1]!;

    // An assignment event in the log links to its assignment.
    const assignmentId = await newAssignment(h, h.a);
    await transition(h, assignmentId, [{ type: 'start' }, { type: 'submit', score: null }]);
    const withEvent = await portalGet(h, admin, `/portal/webhooks/${endpointId}?eventType=exam.completed`);
    expect(withEvent.body).toContain(`href="/portal/assignments/${assignmentId}">Assignment<span class="sr-only">`);
    expect(withEvent.body).not.toContain('<code>webhook.test</code>');

    const filtered = await portalGet(h, admin, `/portal/webhooks/${endpointId}?status=succeeded`);
    expect(filtered.body).toContain('No delivery matches these filters.');
    const byType = await portalGet(h, admin, `/portal/webhooks/${endpointId}?eventType=webhook.test`);
    expect(byType.body).toContain(eventId);

    expect((await portalPost(h, admin, `/portal/webhooks/${endpointId}/status`, { status: 'disabled' })).statusCode).toBe(303);
    expect((await portalGet(h, admin, `/portal/webhooks/${endpointId}`)).body).toContain('disabled by your institution');
    const whileDisabled = await portalPost(h, admin, `/portal/webhooks/${endpointId}/test`);
    expect(whileDisabled.statusCode).toBe(409);
    expect(whileDisabled.body).toContain('enable it before sending a test event');
    expect((await portalPost(h, admin, `/portal/webhooks/${endpointId}/status`, { status: 'enabled' })).statusCode).toBe(303);

    const rotated = await portalPost(h, admin, `/portal/webhooks/${endpointId}/rotate-secret`);
    expect(rotated.statusCode).toBe(200);
    expect(rotated.body).toMatch(/<code id="new-secret"[^>]*>whsec_/);
    expect(rotated.headers['cache-control']).toContain('no-store');

    const again = await portalPost(h, admin, `/portal/webhooks/${endpointId}/redeliver`, { eventId });
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe(`/portal/webhooks/${endpointId}?done=redelivered`);

    const actions = (await auditActions(h, h.a.institutionId)).filter((e) => e.object_id === endpointId || e.object_id === eventId).map((e) => e.action);
    expect(actions).toEqual([
      'webhook_endpoint.created',
      'webhook_endpoint.test_sent',
      'webhook_endpoint.disabled',
      'webhook_endpoint.enabled',
      'webhook_endpoint.secret_rotated',
      'event.redelivered',
    ]);
    expect(JSON.stringify(await auditActions(h, h.a.institutionId))).not.toContain('whsec_');
  });
});

describe('/docs', () => {
  it('keeps the partner API reference first and adds the operator API behind a link', async () => {
    const init = await h.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.statusCode).toBe(200);
    // The page opens the partner document; `?url=` (queryConfigEnabled) opens the operator document, linked from it.
    expect(init.body).toContain('"queryConfigEnabled":true');
    const docsPartner = (await h.app.inject({ method: 'GET', url: '/docs/json' })).json();
    expect(docsPartner.info.title).toBe('Assay Partner API');
    const operator = (await h.app.inject({ method: 'GET', url: '/api/admin/v1/openapi.json' })).json();
    expect(operator.info.title).toBe('Assay Operator API');
    expect(operator.components.securitySchemes.operatorToken.description).toContain('ASSAY_ADMIN_TOKEN');
    expect(Object.keys(operator.paths).every((p: string) => p.startsWith('/api/admin/v1/'))).toBe(true);
    expect(Object.keys(operator.paths)).toContain('/api/admin/v1/institutions/{institutionId}/staff');
    const partner = (await h.app.inject({ method: 'GET', url: '/api/partner/v1/openapi.json' })).json();
    expect(partner.components.securitySchemes.apiKey.description).toContain('ak_live_');
    expect(JSON.stringify(partner)).not.toContain('/portal');
  });
});
