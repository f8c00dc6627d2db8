import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createHarness, type Harness } from '../helpers/harness.js';
import { startFakePlatform, type FakePlatform } from '../helpers/lti-platform.js';
import { LtiBrowser, registerPlatform, resourceLinkClaims } from '../helpers/lti.js';
import { signedIn } from '../helpers/portal.js';
import { VIEWPORTS, freePort, hasBrowser, launchBrowser, requireBrowser, closeContext } from './browser-env.js';
import { checkPortalPage, signInPortal } from './portal-check.js';

/**
 * The portal's LTI pages in Chromium at 1280 and 360 px: the platforms page
 * (with a refused registration, and with a one-time registration URL), one
 * platform's page, and an assignment's grades sent to the LMS. axe finds
 * nothing serious, nothing is wider than the screen; screenshots
 * docs/screenshots/portal-lti-*.png (ASSAY_WRITE_SCREENSHOTS=1).
 */
describe.runIf(requireBrowser && !hasBrowser)('browser tests', () => {
  it('need Chromium when ASSAY_REQUIRE_BROWSER=1', () => {
    expect.fail('ASSAY_REQUIRE_BROWSER=1 but no Chromium was found (set ASSAY_CHROMIUM_PATH or apt-get install -y chromium)');
  });
});

describe.skipIf(!hasBrowser)('the portal LTI pages in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  let platform: FakePlatform;
  let origin: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    platform = await startFakePlatform({ toolJwks: async () => (await h.app.inject({ method: 'GET', url: '/lti/jwks' })).json() });
    await registerPlatform(h, h.a, platform);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    await h?.close();
  });

  it('registration page, refusals, registration URL and one platform, at both widths', async () => {
    const admin = await signedIn(h, 'admin', h.a.institutionId);
    const axe: string[] = [];
    for (const size of ['desktop', 'phone'] as const) {
      const context = await browser.newContext({ viewport: VIEWPORTS[size] });
      await signInPortal(h.pool, h.clock.now(), context, admin);
      const page = await context.newPage();
      await page.goto(`${origin}/portal/lti`);
      await page.getByRole('heading', { level: 1, name: 'LTI platforms' }).waitFor();
      expect(await page.getByText(`${origin}/lti/login`, { exact: true }).count()).toBe(1);
      // This server's public URL is a loopback address over http: the page says an LMS cannot use it.
      const warning = page.getByRole('note').filter({ hasText: 'An LMS cannot use these URLs yet' });
      expect(await warning.isVisible()).toBe(true);
      expect(await warning.innerText()).toContain('PUBLIC_BASE_URL');
      await checkPortalPage(page, 'lti-platforms', size, axe);

      // Three bad URLs and a missing field: every problem at once, each at its field.
      await page.getByLabel('Issuer').fill('http://moodle.alpha-college.example');
      await page.getByLabel('Authentication request URL').fill('not a url');
      await page.getByLabel('Access token URL').fill('https://user:secret@moodle.alpha-college.example/token');
      await page.getByLabel('Public keyset URL').fill('https://moodle.alpha-college.example/jwks#keys');
      await page.getByRole('button', { name: 'Register platform' }).click();
      await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
      expect(await page.getByText('Enter the client id the LMS gave Assay.').count()).toBeGreaterThan(0);
      expect(await page.locator('.error-summary li').count()).toBe(5); // client id, deployment ids and the three URLs
      for (const [field, words] of [
        ['authLoginUrl', 'must be an absolute URL'],
        ['authTokenUrl', 'must not contain credentials'],
        ['jwksUrl', 'must not contain a fragment'],
      ] as const) {
        expect(await page.locator(`#f-${field}-error`).innerText(), field).toContain(words);
        expect(await page.locator(`#f-${field}`).getAttribute('aria-invalid'), field).toBe('true');
      }
      await checkPortalPage(page, 'lti-register-errors', size, axe);

      await page.getByRole('button', { name: 'Make a registration URL' }).click();
      const url = page.locator('#registration-url');
      await url.waitFor();
      expect(await url.textContent()).toMatch(/\/lti\/register\?invite=/);
      await checkPortalPage(page, 'lti-registration-url', size, axe);

      await page.getByRole('link', { name: platform.registration.issuer }).click();
      await page.getByRole('heading', { name: 'Deployments' }).waitFor();
      await checkPortalPage(page, 'lti-platform', size, axe);
      await closeContext(context);
    }
    expect(axe).toEqual([]);
  }, 120_000);

  it("an LTI assignment's grades sent to the LMS, at both widths", async () => {
    const b = new LtiBrowser(h);
    // The launch as LtiBrowser.launch makes it, with this server's own launch URL as the target.
    platform.launches.set('learner-portal', resourceLinkClaims(h.a.testId, { linkId: 'portal-link', lineItem: platform.lineItemUrl('li-portal') }));
    const login = await b.login(platform, 'learner-portal', { target_link_uri: `${origin}/lti/launch` });
    expect(login.statusCode).toBe(302);
    const form = await (await fetch(String(login.headers.location))).text();
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(form)![1]!;
    const launched = await b.postForm('/lti/launch', { id_token: field('id_token'), state: field('state') });
    expect(launched.statusCode).toBe(303);
    const assignmentId = String(launched.headers.location).replace('/a/', '');
    const start = await b.get(`/a/${assignmentId}`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(start.body)![1]!;
    await b.postForm(`/a/${assignmentId}/begin`, { csrf });
    await b.postForm(`/a/${assignmentId}/submit`, { csrf });
    platform.scoreAnswers.push(503);
    await h.runJobs();

    const viewer = await signedIn(h, 'viewer', h.a.institutionId);
    const axe: string[] = [];
    for (const size of ['desktop', 'phone'] as const) {
      const context = await browser.newContext({ viewport: VIEWPORTS[size] });
      await signInPortal(h.pool, h.clock.now(), context, viewer);
      const page = await context.newPage();
      await page.goto(`${origin}/portal/assignments/${assignmentId}`);
      await page.getByRole('heading', { name: 'Grades sent to the LMS' }).waitFor();
      expect(await page.getByText('The LMS had an error (HTTP 503).', { exact: false }).count()).toBe(1);
      await checkPortalPage(page, 'lti-assignment-scores', size, axe);
      await closeContext(context);
    }
    expect(axe).toEqual([]);
  }, 120_000);
});
