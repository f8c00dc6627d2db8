import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';

const input = {
  issuer: 'https://canvas.instructure.com',
  clientId: '10000000000001',
  deploymentIds: ['1:abc'],
  authLoginUrl: 'https://sso.canvaslms.com/api/lti/authorize_redirect',
  authTokenUrl: 'https://sso.canvaslms.com/login/oauth2/token',
  jwksUrl: 'https://sso.canvaslms.com/api/lti/security/jwks',
};

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h?.close());

const url = (institutionId: string, rest = '') => `/api/admin/v1/institutions/${institutionId}/lti-platforms${rest}`;

describe('LTI platform registration (operator API)', () => {
  it('registers a platform and answers with the URLs to enter in the platform', async () => {
    const res = await h.admin('POST', url(h.a.institutionId), input);
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.ltiPlatformId).toMatch(/^ltp_[0-9A-Za-z]{22}$/);
    expect(body).toMatchObject({ ...input, institutionId: h.a.institutionId });
    expect(body.tool).toEqual({
      loginUrl: 'http://assay.test/lti/login',
      launchUrl: 'http://assay.test/lti/launch',
      jwksUrl: 'http://assay.test/lti/jwks',
      deepLinkingUrl: 'http://assay.test/lti/launch',
    });
    const listed = await h.admin('GET', url(h.a.institutionId));
    expect(listed.json().data.map((p: { ltiPlatformId: string }) => p.ltiPlatformId)).toEqual([body.ltiPlatformId]);
    const read = await h.admin('GET', url(h.a.institutionId, `/${body.ltiPlatformId}`));
    expect(read.statusCode).toBe(200);
    expect(read.json().clientId).toBe(input.clientId);
    const audit = await h.pool.query("SELECT action, object_id FROM audit_log WHERE action = 'lti_platform.registered'");
    expect(audit.rows).toEqual([{ action: 'lti_platform.registered', object_id: body.ltiPlatformId }]);
  });

  it("keeps each institution's platforms to itself: another institution's path finds nothing", async () => {
    const created = (await h.admin('POST', url(h.a.institutionId), { ...input, clientId: 'isolation' })).json();
    expectError(await h.admin('GET', url(h.b.institutionId, `/${created.ltiPlatformId}`)), 404, 'not_found');
    expectError(await h.admin('DELETE', url(h.b.institutionId, `/${created.ltiPlatformId}`)), 404, 'not_found');
    expect((await h.admin('GET', url(h.b.institutionId))).json().data).toEqual([]);
    expect((await h.admin('GET', url(h.a.institutionId, `/${created.ltiPlatformId}`))).statusCode).toBe(200);
  });

  it('is for the operator only: no token, a wrong token or a partner key is refused', async () => {
    const noToken = await h.app.inject({ method: 'GET', url: url(h.a.institutionId) });
    expectError(noToken, 401, 'unauthenticated');
    const partnerKey = await h.app.inject({ method: 'POST', url: url(h.a.institutionId), headers: { authorization: `Bearer ${h.a.apiKey}`, 'content-type': 'application/json' }, payload: JSON.stringify(input) });
    expectError(partnerKey, 401, 'unauthenticated');
    const { rows } = await h.pool.query('SELECT count(*)::int AS n FROM lti_platforms');
    expect(rows[0].n).toBe(2);
  });

  it('refuses bad input with the field named, and stores nothing', async () => {
    const before = (await h.pool.query('SELECT count(*)::int AS n FROM lti_platforms')).rows[0].n;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...input, clientId: 'a1', jwksUrl: 'http://sso.canvaslms.com/jwks' }, 'jwksUrl'],
      [{ ...input, clientId: 'a2', authTokenUrl: 'https://10.1.2.3/token' }, 'authTokenUrl'],
      [{ ...input, clientId: 'a3', authLoginUrl: 'https://169.254.169.254/latest' }, 'authLoginUrl'],
      [{ ...input, clientId: 'a4', jwksUrl: 'https://localhost/jwks' }, 'jwksUrl'],
      [{ ...input, clientId: 'a5', jwksUrl: 'https://user:pw@lms.example.edu/jwks' }, 'jwksUrl'],
      [{ ...input, clientId: 'a6', issuer: 'not a url' }, 'issuer'],
      [{ ...input, clientId: 'a7', issuer: 'http://canvas.instructure.com' }, 'issuer'],
    ];
    for (const [body, field] of cases) {
      const res = await h.admin('POST', url(h.a.institutionId), body);
      expectError(res, 400, 'invalid_request');
      expect(res.json().error.details.map((d: { field: string }) => d.field)).toEqual([field]);
    }
    expectError(await h.admin('POST', url(h.a.institutionId), { ...input, deploymentIds: [] }), 400, 'invalid_request');
    expectError(await h.admin('POST', url(h.a.institutionId), { ...input, extra: 1 }), 400, 'invalid_request');
    const { clientId: _omit, ...noClient } = input;
    expectError(await h.admin('POST', url(h.a.institutionId), noClient), 400, 'invalid_request');
    expectError(await h.admin('POST', url('ins_nope'), { ...input, clientId: 'a8' }), 404, 'not_found');
    // The same issuer and client id twice: the second is refused.
    expectError(await h.admin('POST', url(h.b.institutionId), input), 409, 'invalid_state');
    expect((await h.pool.query('SELECT count(*)::int AS n FROM lti_platforms')).rows[0].n).toBe(before);
  });

  it("replaces a platform's deployment ids, within its institution only", async () => {
    const created = (await h.admin('POST', url(h.a.institutionId), { ...input, clientId: 'deployments' })).json();
    const changed = await h.admin('PATCH', url(h.a.institutionId, `/${created.ltiPlatformId}`), { deploymentIds: ['d-2', 'd-3', 'd-2'] });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().deploymentIds).toEqual(['d-2', 'd-3']);
    expectError(await h.admin('PATCH', url(h.b.institutionId, `/${created.ltiPlatformId}`), { deploymentIds: ['x'] }), 404, 'not_found');
    expectError(await h.admin('PATCH', url(h.a.institutionId, `/${created.ltiPlatformId}`), { deploymentIds: [] }), 400, 'invalid_request');
    expectError(await h.admin('PATCH', url(h.a.institutionId, `/${created.ltiPlatformId}`), { issuer: 'https://x.example' }), 400, 'invalid_request');
    expect((await h.admin('GET', url(h.a.institutionId, `/${created.ltiPlatformId}`))).json().deploymentIds).toEqual(['d-2', 'd-3']);
  });

  it('removes a platform', async () => {
    const created = (await h.admin('POST', url(h.a.institutionId), { ...input, clientId: 'to-remove' })).json();
    expect((await h.admin('DELETE', url(h.a.institutionId, `/${created.ltiPlatformId}`))).statusCode).toBe(204);
    expectError(await h.admin('GET', url(h.a.institutionId, `/${created.ltiPlatformId}`)), 404, 'not_found');
  });
});

describe("the tool's key pair", () => {
  it('is published at /lti/jwks with its kid, stored sealed, and rotates keeping the old key published', async () => {
    const first = await h.app.inject({ method: 'GET', url: '/lti/jwks' });
    expect(first.statusCode).toBe(200);
    const keys = first.json().keys;
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(keys[0].kid).toEqual(expect.any(String));
    expect(keys[0].d).toBeUndefined();
    const stored = await h.pool.query('SELECT private_key_sealed FROM lti_tool_keys');
    expect(stored.rows[0].private_key_sealed).toMatch(/^v2\./);
    expect(stored.rows[0].private_key_sealed).not.toContain('PRIVATE KEY');

    const again = await h.app.inject({ method: 'GET', url: '/lti/jwks' });
    expect(again.json().keys.map((k: { kid: string }) => k.kid)).toEqual([keys[0].kid]);

    const rotated = await h.admin('POST', '/api/admin/v1/lti/tool-keys/rotate');
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().kid).not.toBe(keys[0].kid);
    const after = (await h.app.inject({ method: 'GET', url: '/lti/jwks' })).json().keys.map((k: { kid: string }) => k.kid);
    expect(after).toEqual([rotated.json().kid, keys[0].kid]);
    expectError(await h.app.inject({ method: 'POST', url: '/api/admin/v1/lti/tool-keys/rotate' }), 401, 'unauthenticated');
  });
});
