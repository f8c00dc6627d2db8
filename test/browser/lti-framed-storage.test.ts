import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { createHarness, type Harness } from '../helpers/harness.js';
import { CLIENT_ID, ISSUER, STORAGE_TARGET, startFakePlatform, type FakePlatform } from '../helpers/lti-platform.js';
import { registerPlatform, resourceLinkClaims } from '../helpers/lti.js';
import { readAssignment } from '../helpers/student.js';
import { CHROMIUM_PATH, freePort, hasBrowser, closeContext } from './browser-env.js';

/**
 * A launch in the course's frame from another site, in a Chromium that blocks
 * third-party cookies: the tool is served as http://localhost:…, the course
 * page as http://127.0.0.1:… (two sites). The state's cookie does not come
 * back with the platform's cross-site post into the frame, so the cookie
 * path alone ends on "could not be verified" (checked first); with the
 * platform's storage frame named in the login (lti_storage_target) the
 * launch goes through the platform storage and the learner reaches the
 * test's start page.
 */
describe.skipIf(!hasBrowser)('a framed launch with third-party cookies blocked', () => {
  let h: Harness;
  let browser: Browser;
  let platform: FakePlatform;
  let origin: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    platform = await startFakePlatform({ toolJwks: async () => (await h.app.inject({ method: 'GET', url: '/lti/jwks' })).json() });
    await registerPlatform(h, h.a, platform);
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--test-third-party-cookie-phaseout'],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    await h?.close();
  });

  /** The course page framing /lti/login for `hint`; with `storage`, the platform's storage frame beside it and named in the login. */
  async function framedLaunch(page: Page, hint: string, storage: boolean): Promise<Frame> {
    platform.launches.set(hint, resourceLinkClaims(h.a.testId, { linkId: `framed-${hint}` }));
    const q = new URLSearchParams({ iss: ISSUER, login_hint: hint, target_link_uri: `${origin}/lti/launch`, client_id: CLIENT_ID, lti_deployment_id: 'deployment-1' });
    if (storage) q.set('lti_storage_target', STORAGE_TARGET);
    await page.goto(`${platform.baseUrl}/course?${new URLSearchParams({ src: `${origin}/lti/login?${q}`, ...(storage ? { storage: '1' } : {}) })}`);
    await page.frameLocator('iframe[title="Assay activity"]').getByRole('heading', { level: 1 }).waitFor();
    const frame = page.frames().find((f) => f.url().startsWith(`${origin}/lti/launch`));
    expect(frame, page.frames().map((f) => f.url()).join(' ')).toBeTruthy();
    await frame!.waitForLoadState('networkidle');
    return frame!;
  }

  it('ends on "could not be verified" through the cookie alone', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const frame = await framedLaunch(page, 'learner-cookie-only', false);
    expect(await frame.getByRole('heading', { level: 1 }).textContent()).toBe('This launch could not be verified');
    await closeContext(context);
  });

  it('lands on the start page through the platform storage', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const frame = await framedLaunch(page, 'learner-storage', true);
    const link = frame.getByRole('link', { name: /Open the test in a new window/ });
    await link.waitFor();
    // The binding went into the platform's storage and came back out, to and from the tool's origin only.
    expect(platform.storageMessages.map((m) => [m.subject, m.origin])).toEqual([
      ['lti.put_data', origin],
      ['lti.get_data', origin],
    ]);
    const [popup] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await popup.waitForLoadState('networkidle');
    expect(popup.url()).toMatch(new RegExp(`^${origin}/a/asg_`));
    expect(await popup.getByRole('heading', { level: 1 }).textContent()).toBe('Arithmetic');
    expect(await popup.getByRole('button', { name: 'Begin test' }).count()).toBe(1);
    const assignmentId = popup.url().split('/a/')[1]!;
    expect((await readAssignment(h, h.a, assignmentId)).status).toBe('assigned');
    await closeContext(context);
  });
});
