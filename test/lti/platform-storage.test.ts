import { describe, expect, it } from 'vitest';
import { manualClock, type Harness } from '../helpers/harness.js';
import type { FakePlatform } from '../helpers/lti-platform.js';
import { launchFootprint, LtiBrowser, resourceLinkClaims, useLtiRig } from '../helpers/lti.js';

const clock = manualClock();
let h: Harness;
let platform: FakePlatform;

useLtiRig(clock, (rig) => ({ h, platform } = rig));

const data = (body: string, name: string) => new RegExp(`data-${name}="([^"]*)"`).exec(body)?.[1];

/**
 * A login naming the platform's storage frame, then the platform's answer, posted by a browser that
 * dropped the tool's cookie (as Safari, or any browser blocking third-party cookies, does in a frame).
 */
async function cookielessLaunch(hint: string) {
  const b = new LtiBrowser(h);
  platform.launches.set(hint, resourceLinkClaims(h.a.testId, { linkId: `storage-${hint}` }));
  const login = await b.login(platform, hint, { lti_storage_target: 'lti_storage' });
  const stateCookie = [...b.cookies.keys()].find((k) => k.startsWith('assay_lti_'))!;
  const stored = { key: stateCookie, value: b.cookies.get(stateCookie)! };
  b.cookies.clear();
  const next = /id="lti-continue" href="([^"]+)"/.exec(login.body)![1]!.replaceAll('&amp;', '&');
  const form = await (await fetch(next)).text();
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(form)![1]!;
  const posted = { id_token: field('id_token'), state: field('state') };
  return { b, login, stored, posted, first: await b.postForm('/lti/launch', posted, { 'sec-fetch-site': 'cross-site' }) };
}

describe('launches through the platform storage (LTI Client Side postMessages)', () => {
  it("a login naming lti_storage_target answers a page that stores the cookie's binding in the platform's frame, then goes on to the platform", async () => {
    const { login, stored } = await cookielessLaunch('learner-s1');
    expect(login.statusCode).toBe(200);
    expect(login.headers['content-security-policy']).toContain("script-src 'self'");
    expect(login.body).toContain('<script src="/lti/assets/platform-storage.js" defer></script>');
    expect(data(login.body, 'mode')).toBe('put');
    expect(data(login.body, 'target')).toBe('lti_storage');
    expect(data(login.body, 'origin')).toBe(platform.baseUrl);
    expect(data(login.body, 'key')).toBe(stored.key);
    expect(data(login.body, 'value')).toBe(stored.value);
    // The cookie is set as well: where the browser keeps it, it decides alone.
    expect(String(login.headers['set-cookie'])).toContain(`${stored.key}=${stored.value}`);
    expect((await h.app.inject({ method: 'GET', url: '/lti/assets/platform-storage.js' })).statusCode).toBe(200);
  });

  it('a launch without the cookie reads the binding back (lti.get_data), and its post from the tool\'s page signs the learner in', async () => {
    const { b, stored, posted, first } = await cookielessLaunch('learner-s2');
    expect(first.statusCode).toBe(200);
    expect(data(first.body, 'mode')).toBe('get');
    expect(data(first.body, 'key')).toBe(stored.key);
    expect(data(first.body, 'origin')).toBe(platform.baseUrl);
    expect(first.body).toContain(`name="id_token" value="${posted.id_token}"`);
    const done = await b.postForm('/lti/launch', { ...posted, browser_binding: stored.value }, { 'sec-fetch-site': 'same-origin' });
    expect(done.statusCode).toBe(303);
    expect(String(done.headers.location)).toMatch(/^\/a\/asg_/);
  });

  it('refuses the stored value posted from another site, a wrong value, and no value, creating nothing', async () => {
    const { b, stored, posted } = await cookielessLaunch('learner-s3');
    const before = await launchFootprint(h);
    for (const [binding, site] of [
      [stored.value, 'cross-site'],
      [stored.value, 'same-site'],
      ['not-the-value', 'same-origin'],
      ['', 'same-origin'],
    ] as const) {
      const res = await b.postForm('/lti/launch', { ...posted, browser_binding: binding }, { 'sec-fetch-site': site });
      expect(res.statusCode).toBe(401);
      expect(res.body).toContain('This launch could not be verified');
    }
    expect(await launchFootprint(h)).toEqual(before);
    // A browser without Fetch Metadata: its Origin must be the tool's.
    expect((await b.postForm('/lti/launch', { ...posted, browser_binding: stored.value }, { origin: 'http://evil.example' })).statusCode).toBe(401);
    expect((await b.postForm('/lti/launch', { ...posted, browser_binding: stored.value }, { origin: 'http://assay.test' })).statusCode).toBe(303);
  });

  it('a login without a storage target keeps the cookie-only flow: a redirect, and a cookieless launch refused', async () => {
    const b = new LtiBrowser(h);
    const { id_token, state } = await b.authorize(platform, 'learner-s4', resourceLinkClaims(h.a.testId, { linkId: 'storage-none' }));
    b.cookies.clear();
    const res = await b.postForm('/lti/launch', { id_token, state });
    expect(res.statusCode).toBe(401);
    expect(res.body).toContain('This launch could not be verified');
  });

  it('refuses a storage target that is not a frame name', async () => {
    const res = await new LtiBrowser(h).login(platform, 'learner-s5', { lti_storage_target: 'x"><script>' });
    expect(res.statusCode).toBe(400);
  });
});
