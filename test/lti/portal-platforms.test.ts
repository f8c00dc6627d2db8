import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { auditActions, portalGet, portalPost, signedIn, type PortalUser } from '../helpers/portal.js';

/**
 * The portal's LTI platforms page: an admin registers a platform with the
 * operator API's rules, every refusal says what is wrong next to the field
 * and changes nothing, deployments are edited, the platform removed, and a
 * Dynamic Registration URL made; each change leaves an audit entry.
 */
let h: Harness;
let admin: PortalUser;
let operator: PortalUser;

const GOOD = {
  issuer: 'https://canvas.alpha-college.example',
  clientId: '10000000000042',
  deploymentIds: 'dep-1\n dep-2 \n\n',
  authLoginUrl: 'https://canvas.alpha-college.example/api/lti/authorize_redirect',
  authTokenUrl: 'https://canvas.alpha-college.example/login/oauth2/token',
  jwksUrl: 'https://canvas.alpha-college.example/api/lti/security/jwks',
};

const platforms = async () => (await h.admin('GET', `/api/admin/v1/institutions/${h.a.institutionId}/lti-platforms`)).json().data as Array<{ ltiPlatformId: string; issuer: string; deploymentIds: string[] }>;

beforeAll(async () => {
  h = await createHarness();
  admin = await signedIn(h, 'admin', h.a.institutionId);
  operator = await signedIn(h, 'operator');
});
afterAll(() => h.close());

describe('the LTI platforms page', () => {
  it("shows Assay's URLs to paste into the LMS and the nav entry, with an empty list", async () => {
    const page = await portalGet(h, admin, '/portal/lti');
    expect(page.statusCode).toBe(200);
    for (const path of ['/lti/login', '/lti/launch', '/lti/jwks']) expect(page.body).toContain(`http://assay.test${path}</code>`);
    expect(page.body).toMatch(/<a[^>]+href="\/portal\/lti"[^>]*aria-current="page"[^>]*>LTI platforms<\/a>|<a[^>]+aria-current="page"[^>]+href="\/portal\/lti"/);
    expect(page.body).toContain('No learning platform is registered yet');
    const viewer = await signedIn(h, 'viewer', h.a.institutionId);
    expect((await portalGet(h, viewer, '/portal')).body).not.toContain('href="/portal/lti"');
  });

  it('refuses each bad field in words next to it, and registers nothing', async () => {
    const empty = await portalPost(h, admin, '/portal/lti', {});
    expect(empty.statusCode).toBe(400);
    for (const words of ["Enter the platform&#39;s issuer", 'Enter the client id', 'Enter at least one deployment id', 'authentication request URL', 'access token URL', 'public keyset URL']) {
      expect(empty.body).toContain(words);
    }
    const insecure = await portalPost(h, admin, '/portal/lti', { ...GOOD, issuer: 'http://canvas.alpha-college.example', jwksUrl: 'https://10.0.0.5/jwks' });
    expect(insecure.statusCode).toBe(400);
    expect(insecure.body).toMatch(/id="f-issuer-error"[^]*must use https:/);
    expect(insecure.body).toContain('value="https://canvas.alpha-college.example/login/oauth2/token"'); // typed values stay
    const jwksRefused = await portalPost(h, admin, '/portal/lti', { ...GOOD, jwksUrl: 'https://10.0.0.5/jwks' });
    expect(jwksRefused.statusCode).toBe(400);
    expect(jwksRefused.body).toMatch(/id="f-jwksUrl-error"/);
    expect(await platforms()).toEqual([]);
    expect((await auditActions(h, h.a.institutionId)).filter((e) => e.action.startsWith('lti_'))).toEqual([]);
  });

  it('shows every bad URL at once, each at its field and in the summary', async () => {
    const three = await portalPost(h, admin, '/portal/lti', {
      ...GOOD,
      authLoginUrl: 'http://canvas.alpha-college.example/api/lti/authorize_redirect',
      authTokenUrl: 'not a url',
      jwksUrl: 'https://10.0.0.5/jwks',
    });
    expect(three.statusCode).toBe(400);
    for (const field of ['authLoginUrl', 'authTokenUrl', 'jwksUrl']) {
      expect(three.body, field).toMatch(new RegExp(`id="f-${field}-error"`));
      expect(three.body, field).toContain(`<a href="#f-${field}">`);
    }
    expect(three.body).not.toMatch(/id="f-issuer-error"/);
    expect(three.body).toMatch(/id="f-authLoginUrl-error"><span class="sr-only">[^<]*<\/span> Authentication request URL: must use https:/);
    // A missing field and a bad URL are shown together too.
    const mixed = await portalPost(h, admin, '/portal/lti', { ...GOOD, clientId: '', issuer: 'http://canvas.alpha-college.example', jwksUrl: 'https://10.0.0.5/jwks' });
    expect(mixed.statusCode).toBe(400);
    for (const field of ['clientId', 'issuer', 'jwksUrl']) expect(mixed.body, field).toMatch(new RegExp(`id="f-${field}-error"`));
    expect(await platforms()).toEqual([]);
  });

  it('warns that an LMS needs https when the public URL is not https', async () => {
    const page = await portalGet(h, admin, '/portal/lti');
    expect(page.body).toContain('id="tool-url-warning"');
    expect(page.body).toContain('<code>http://assay.test</code>, without https');
  });

  it('registers, refuses the same issuer and client id again, edits deployments and removes, each audited', async () => {
    const made = await portalPost(h, admin, '/portal/lti', GOOD);
    expect(made.statusCode).toBe(303);
    const [platform] = await platforms();
    expect(platform).toMatchObject({ issuer: GOOD.issuer, deploymentIds: ['dep-1', 'dep-2'] });
    expect(made.headers.location).toBe(`/portal/lti/${platform!.ltiPlatformId}?done=lti-registered`);

    const page = await portalGet(h, admin, String(made.headers.location));
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('The learning platform was registered');
    expect(page.body).toContain(GOOD.jwksUrl);

    const again = await portalPost(h, admin, '/portal/lti', GOOD);
    expect(again.statusCode).toBe(400);
    expect(again.body).toContain('is registered already for this issuer');
    expect(await platforms()).toHaveLength(1);

    const blank = await portalPost(h, admin, `/portal/lti/${platform!.ltiPlatformId}/deployments`, { deploymentIds: ' \n ' });
    expect(blank.statusCode).toBe(400);
    expect(blank.body).toContain('Enter at least one deployment id.');
    expect((await platforms())[0]!.deploymentIds).toEqual(['dep-1', 'dep-2']);

    const saved = await portalPost(h, admin, `/portal/lti/${platform!.ltiPlatformId}/deployments`, { deploymentIds: 'dep-3, dep-4' });
    expect(saved.statusCode).toBe(303);
    expect((await platforms())[0]!.deploymentIds).toEqual(['dep-3', 'dep-4']);

    const removed = await portalPost(h, admin, `/portal/lti/${platform!.ltiPlatformId}/remove`);
    expect(removed.statusCode).toBe(303);
    expect(removed.headers.location).toBe('/portal/lti?done=lti-removed');
    expect(await platforms()).toEqual([]);
    expect((await portalGet(h, admin, `/portal/lti/${platform!.ltiPlatformId}`)).statusCode).toBe(404);

    const entries = (await auditActions(h, h.a.institutionId)).filter((e) => e.action.startsWith('lti_'));
    expect(entries.map((e) => [e.action, e.actor_id, e.object_id])).toEqual([
      ['lti_platform.registered', admin.staffId, platform!.ltiPlatformId],
      ['lti_platform.deployments_changed', admin.staffId, platform!.ltiPlatformId],
      ['lti_platform.deleted', admin.staffId, platform!.ltiPlatformId],
    ]);
  });

  it('makes a one-time Dynamic Registration URL, shown in the answer only and never cached', async () => {
    const res = await portalPost(h, admin, '/portal/lti/registration-url');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toContain('no-store');
    const url = /<code id="registration-url"[^>]*>([^<]+)<\/code>/.exec(res.body)![1]!;
    expect(url).toMatch(/^http:\/\/assay\.test\/lti\/register\?invite=[0-9A-Za-z]{32}$/);
    const entries = (await auditActions(h, h.a.institutionId)).filter((e) => e.action === 'lti_registration.invited');
    expect(entries).toHaveLength(1);
    expect(JSON.stringify(entries)).not.toContain(url.split('=')[1]);
    // The page shown afterwards no longer holds it.
    expect((await portalGet(h, admin, '/portal/lti')).body).not.toContain(url.split('=')[1]);
  });

  it('lets an operator register for the institution they choose', async () => {
    const made = await portalPost(h, operator, '/portal/lti', { ...GOOD, institution: h.a.institutionId });
    expect(made.statusCode).toBe(303);
    expect(made.headers.location).toMatch(new RegExp(`^/portal/lti/ltp_[0-9A-Za-z]+\\?institution=${h.a.institutionId}&done=lti-registered$`));
    expect(await platforms()).toHaveLength(1);
  });
});
