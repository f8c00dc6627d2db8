import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './helpers/harness.js';
import { auditActions, portalGet, portalPost, signedIn, type PortalUser } from './helpers/portal.js';

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
