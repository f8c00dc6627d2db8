import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { CLIENT_ID, DEPLOYMENT_ID, startFakePlatform, type FakePlatform } from '../helpers/lti-platform.js';
import { LtiBrowser, resourceLinkClaims } from '../helpers/lti.js';

const clock = manualClock();
let h: Harness;
let platform: FakePlatform;

beforeAll(async () => {
  h = await createHarness({ clock, config: { allowInsecureUrls: true } });
  platform = await startFakePlatform({ toolJwks: async () => (await h.app.inject({ method: 'GET', url: '/lti/jwks' })).json(), now: () => clock.now(), issuer: 'self' });
});
afterAll(async () => {
  await platform?.close();
  await h?.close();
});

async function invite(institutionId = h.a.institutionId): Promise<string> {
  const res = await h.admin('POST', `/api/admin/v1/institutions/${institutionId}/lti-registrations`);
  expect(res.statusCode).toBe(201);
  expect(res.json().registrationUrl).toMatch(/^http:\/\/assay\.test\/lti\/register\?invite=/);
  return new URL(res.json().registrationUrl).searchParams.get('invite')!;
}

const register = (token: string, extra: Record<string, string> = {}) =>
  h.app.inject({
    method: 'GET',
    url: `/lti/register?${new URLSearchParams({ invite: token, openid_configuration: `${platform.baseUrl}/.well-known/openid-configuration`, registration_token: 'reg-token-1', ...extra })}`,
  });

const platformCount = async () => (await h.pool.query('SELECT count(*)::int AS n FROM lti_platforms')).rows[0].n as number;

describe('LTI Dynamic Registration', () => {
  it('registers Assay with the platform and the platform with the institution, after which a launch works', async () => {
    const token = await invite();
    const res = await register(token);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<h1>Assay is registered</h1>');
    expect(res.body).toContain('<script src="/lti/assets/registration-close.js" defer></script>');

    expect(platform.registrations).toHaveLength(1);
    const sent = platform.registrations[0]!.body;
    expect(sent).toMatchObject({
      application_type: 'web',
      response_types: ['id_token'],
      grant_types: ['implicit', 'client_credentials'],
      initiate_login_uri: 'http://assay.test/lti/login',
      redirect_uris: ['http://assay.test/lti/launch'],
      jwks_uri: 'http://assay.test/lti/jwks',
      token_endpoint_auth_method: 'private_key_jwt',
    });
    expect(sent['https://purl.imsglobal.org/spec/lti-tool-configuration'].messages.map((m: { type: string }) => m.type)).toEqual(['LtiResourceLinkRequest', 'LtiDeepLinkingRequest']);

    const listed = (await h.admin('GET', `/api/admin/v1/institutions/${h.a.institutionId}/lti-platforms`)).json().data;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      issuer: platform.baseUrl,
      clientId: CLIENT_ID,
      deploymentIds: [DEPLOYMENT_ID],
      authLoginUrl: `${platform.baseUrl}/auth`,
      authTokenUrl: `${platform.baseUrl}/token`,
      jwksUrl: `${platform.baseUrl}/jwks`,
    });

    const launched = await new LtiBrowser(h).launch(platform, 'learner-dr', resourceLinkClaims(h.a.testId));
    expect(launched.statusCode).toBe(303);

    // The invite is used once.
    const again = await register(token);
    expect(again.statusCode).toBe(400);
    expect(again.body).toContain('Assay could not be registered');
    expect(platform.registrations).toHaveLength(1);
  });

  it('refuses an unknown or expired invite, a configuration on a private address or another domain, creating nothing', async () => {
    const before = await platformCount();
    expect((await register('not-an-invite')).statusCode).toBe(400);
    const token = await invite(h.b.institutionId);
    // Loopback is allowed in this harness (ASSAY_ALLOW_INSECURE_URLS); a private network address never is.
    const privateConfig = await register(token, { openid_configuration: 'http://10.0.0.8/.well-known/openid-configuration' });
    expect(privateConfig.statusCode).toBe(400);
    expect(privateConfig.body).toContain('is not a public https address');
    const elsewhere = await register(token, { openid_configuration: `${platform.baseUrl.replace('127.0.0.1', 'localhost')}/.well-known/openid-configuration` });
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.body).toContain('does not match');
    const wrongToken = await register(token, { registration_token: 'wrong' });
    expect(wrongToken.statusCode).toBe(400);
    expect(wrongToken.body).toContain('answered 401');
    clock.advance(8 * 24 * 60 * 60 * 1000);
    expect((await register(token)).statusCode).toBe(400);
    expect(await platformCount()).toBe(before);
    expect(platform.registrations).toHaveLength(1);
  });

  it('makes invites for the operator only, for an institution that exists', async () => {
    expectError(await h.app.inject({ method: 'POST', url: `/api/admin/v1/institutions/${h.a.institutionId}/lti-registrations` }), 401, 'unauthenticated');
    expectError(await h.admin('POST', '/api/admin/v1/institutions/ins_nope/lti-registrations'), 404, 'not_found');
  });
});
