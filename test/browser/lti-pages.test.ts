import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { createHarness, type Harness } from '../helpers/harness.js';
import { CLIENT_ID, INSTRUCTOR, ISSUER, LTI, startFakePlatform, type FakePlatform } from '../helpers/lti-platform.js';
import { registerPlatform, resourceLinkClaims } from '../helpers/lti.js';
import { readAssignment } from '../helpers/student.js';
import { SHOTS, VIEWPORTS, freePort, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations, closeContext } from './browser-env.js';

describe.runIf(requireBrowser && !hasBrowser)('browser tests', () => {
  it('need Chromium when ASSAY_REQUIRE_BROWSER=1', () => {
    expect.fail('ASSAY_REQUIRE_BROWSER=1 but no Chromium was found (set ASSAY_CHROMIUM_PATH or apt-get install -y chromium)');
  });
});

describe.skipIf(!hasBrowser)('LTI launches in a real browser', () => {
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

  /** The platform starts a launch in this page: the login, its redirect to the platform, the platform's form post. */
  async function launch(page: Page, loginHint: string, claims: Record<string, unknown>) {
    platform.launches.set(loginHint, claims);
    const q = new URLSearchParams({ iss: ISSUER, login_hint: loginHint, target_link_uri: `${origin}/lti/launch`, client_id: CLIENT_ID, lti_deployment_id: 'deployment-1' });
    await page.goto(`${origin}/lti/login?${q}`);
    await page.waitForLoadState('networkidle');
  }

  /** axe, nothing wider than the viewport, and a screenshot as tall as the page, at both widths. */
  async function checkPage(page: Page, name: string) {
    for (const [size, viewport] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(viewport);
      expect(await seriousAxeViolations(page), `${name} ${size}`).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} ${size}`).toBeLessThanOrEqual(viewport.width);
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      await page.setViewportSize({ width: viewport.width, height: Math.min(height, 6000) });
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, `lti-${name}-${size}.png`) });
    }
    await page.setViewportSize(VIEWPORTS.desktop);
  }

  it('takes a learner from the course to the start page, through the test, and the score to the gradebook', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    await launch(page, 'learner-b1', resourceLinkClaims(h.a.testId, { lineItem: platform.lineItemUrl('li-b') }));
    expect(page.url()).toMatch(new RegExp(`^${origin}/a/asg_`));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Arithmetic');
    const assignmentId = page.url().split('/a/')[1]!;
    await page.getByRole('button', { name: 'Begin test' }).click();
    await page.getByRole('timer').waitFor();
    await page.getByRole('group', { name: /2 \+ 2\?/ }).getByLabel('4').check();
    await page.getByRole('group', { name: /10 \/ 4\?/ }).getByRole('textbox').fill('2.5');
    await page.getByRole('button', { name: 'Submit test' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Submit', exact: true }).click();
    await page.waitForLoadState('networkidle');
    await expect.poll(async () => (await readAssignment(h, h.a, assignmentId)).status).toBe('completed');
    await h.runJobs();
    const read = await readAssignment(h, h.a, assignmentId);
    expect(platform.scores.at(-1)!.body).toMatchObject({ userId: 'learner-b1', gradingProgress: 'FullyGraded', scoreGiven: read.result.score.points, scoreMaximum: 2 });
    expect(read.result.score.points).toBe(2);
    await closeContext(context);
  });

  it("in the course's frame, opens the test in a new window, where the learner is signed in", async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    platform.launches.set('learner-b3', resourceLinkClaims(h.a.testId, { linkId: 'framed-b' }));
    const q = new URLSearchParams({ iss: ISSUER, login_hint: 'learner-b3', target_link_uri: `${origin}/lti/launch`, client_id: CLIENT_ID, lti_deployment_id: 'deployment-1' });
    await page.goto(`${platform.baseUrl}/course?src=${encodeURIComponent(`${origin}/lti/login?${q}`)}`);
    const frame = page.frameLocator('iframe');
    const link = frame.getByRole('link', { name: /Open the test in a new window/ });
    await link.waitFor();
    const framePage = page.frames().find((f) => f.url().startsWith(`${origin}/lti/launch`))!;
    expect(framePage).toBeTruthy();
    // axe in the frame (it only needs evaluate, which a frame has too).
    expect(await seriousAxeViolations(framePage as unknown as Page)).toEqual([]);
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, 'lti-framed-launch-desktop.png') });
    const [popup] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await popup.waitForLoadState('networkidle');
    expect(popup.url()).toMatch(new RegExp(`^${origin}/a/asg_`));
    expect(await popup.getByRole('button', { name: 'Begin test' }).count()).toBe(1);
    await closeContext(context);
  });

  it("shows an instructor the link's page, readable at both widths", async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    await launch(page, 'teacher-b1', resourceLinkClaims(h.a.testId, { roles: [INSTRUCTOR] }));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Arithmetic');
    expect(await page.getByText('Completed', { exact: true }).count()).toBe(1);
    await checkPage(page, 'instructor');
    await closeContext(context);
  });

  it('tells an observer they cannot take the test, and a link without a test what to do, readable at both widths', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    await launch(page, 'mentor-b1', resourceLinkClaims(h.a.testId, { linkId: 'observed', roles: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor'] }));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Arithmetic');
    expect(await page.getByText(/as an observer, so you cannot take this test/).count()).toBe(1);
    await checkPage(page, 'observer');
    const noTest = (roles: string[]) => {
      const claims: Record<string, unknown> = resourceLinkClaims(h.a.testId, { linkId: 'typed-by-hand', roles });
      delete claims[`${LTI}custom`];
      return claims;
    };
    await launch(page, 'teacher-b9', noTest([INSTRUCTOR]));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('No test is chosen for this link');
    await checkPage(page, 'no-test-instructor');
    await launch(page, 'learner-b9', noTest(['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner']));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This activity has no test yet');
    await checkPage(page, 'no-test-learner');
    await closeContext(context);
  });

  it('lets an instructor pick a test with the keyboard, and posts the signed answer back to the course', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    await launch(page, 'teacher-b2', {
      [`${LTI}message_type`]: 'LtiDeepLinkingRequest',
      [`${LTI}roles`]: [INSTRUCTOR],
      'https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings': { deep_link_return_url: `${platform.baseUrl}/deep-link-return`, accept_types: ['ltiResourceLink'], data: 'd-1' },
    });
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Choose a test');
    await checkPage(page, 'deep-linking-picker');
    // Keyboard only: Tab to the row's button, Enter.
    const button = page.getByRole('listitem').filter({ hasText: 'Arithmetic' }).getByRole('button', { name: 'Use this test' });
    for (let i = 0; i < 10 && !(await button.evaluate((b) => b === document.activeElement)); i++) await page.keyboard.press('Tab');
    expect(await button.evaluate((b) => b === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Back in the course' }).waitFor();
    expect(platform.deepLinkAnswers).toHaveLength(1);
    const jwks = createLocalJWKSet((await h.app.inject({ method: 'GET', url: '/lti/jwks' })).json());
    await jwtVerify(platform.deepLinkAnswers[0]!, jwks, { issuer: CLIENT_ID, audience: ISSUER, algorithms: ['RS256'] });
    const items = decodeJwt(platform.deepLinkAnswers[0]!)['https://purl.imsglobal.org/spec/lti-dl/claim/content_items'] as Array<Record<string, any>>;
    expect(items[0]!.custom).toEqual({ assay_test_id: h.a.testId });
    await closeContext(context);
  });

  it('shows one plain page for a launch that cannot be verified', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    await launch(page, 'learner-b2', { ...resourceLinkClaims(h.b.testId) });
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This launch could not be verified');
    await checkPage(page, 'launch-refused');
    await closeContext(context);
  });

  it("refuses in the launch's language: Arabic from its locale claim, right to left, readable at both widths", async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop, locale: 'en-GB' });
    const page = await context.newPage();
    await launch(page, 'learner-b4', resourceLinkClaims(h.b.testId, { locale: 'ar' }));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('تعذّر التحقق من فتح هذا النشاط');
    expect(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir, getComputedStyle(document.body).direction])).toEqual(['ar', 'rtl', 'rtl']);
    await checkPage(page, 'launch-refused-ar');
    await closeContext(context);
  });
});
