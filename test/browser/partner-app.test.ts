import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { Assay } from '../../packages/partner-sdk/src/index.js';
import { createPartnerApp, type PartnerApp } from '../../examples/partner-app/app.js';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { testModeTenant } from '../helpers/test-mode.js';
import { fastWebhooks, startDispatcher, type Dispatcher } from '../helpers/webhook-setup.js';
import { freePort, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations, SHOTS, closeContext } from './browser-env.js';

/**
 * The example partner app (examples/partner-app) in front of a real Assay,
 * with a test-mode key: a person assigns a test in the LMS, takes it through the real start link
 * in Chromium, returns to the LMS, and sees the status and score that the
 * LMS learned from Assay's signed webhooks. The pages are also written to
 * docs/screenshots/partner-app-*.png at desktop and phone width.
 */
// The docs' screenshots are rewritten only when asked (ASSAY_WRITE_SCREENSHOTS=1), so a test run leaves the checkout as it was.
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `partner-app-${name}.png`), fullPage: true });
describe.runIf(requireBrowser && !hasBrowser)('browser tests', () => {
  it('need Chromium when ASSAY_REQUIRE_BROWSER=1', () => {
    expect.fail('ASSAY_REQUIRE_BROWSER=1 but no Chromium was found (set ASSAY_CHROMIUM_PATH or apt-get install -y chromium)');
  });
});

describe.skipIf(!hasBrowser)('the example partner app in a real browser', () => {
  let h: Harness;
  let dispatcher: Dispatcher;
  let browser: Browser;
  let tenant: Tenant;
  let lms: PartnerApp;
  let lmsUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin, allowInsecureUrls: true, webhooks: fastWebhooks() } });
    await h.app.listen({ port, host: '127.0.0.1' });
    dispatcher = startDispatcher(h);
    await dispatcher.start();
    // The LMS's return page is on localhost: the institution allows it as a callback domain.
    // With a test-mode key, as the example is meant to run.
    tenant = await testModeTenant(h, await h.createTenant('Riverside College', ['localhost']));
    const lmsPort = await freePort();
    lmsUrl = `http://localhost:${lmsPort}`;
    lms = createPartnerApp({
      assay: new Assay({ apiKey: tenant.apiKey, baseUrl: origin }),
      publicUrl: lmsUrl,
      dataFile: null,
      testMode: tenant.apiKey.startsWith('ak_test_'),
      log: () => undefined,
    });
    await lms.start(lmsPort);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await lms?.close();
    await dispatcher?.stop();
    await h?.close();
  });

  const group = (page: Page, prompt: string) => page.getByRole('group', { name: new RegExp(prompt.replace(/[?+()/]/g, '\\$&')) });

  it('registered its webhook endpoint with Assay on start', async () => {
    const res = await h.partner(tenant, 'GET', '/api/partner/v1/webhook-endpoints');
    expect(res.json().data.map((e: { url: string }) => e.url)).toEqual([`${lmsUrl}/webhooks/assay`]);
    expect(lms.store.state.webhook?.secret).toMatch(/^whsec_/);
  });

  it('assigns a test, sends the student through the start link, and shows the score that arrived by webhook', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const board = await context.newPage();
    await board.goto(`${lmsUrl}/students`);
    await board.getByText('No assignments yet').waitFor();
    expect(await seriousAxeViolations(board)).toEqual([]);

    const page = await context.newPage();
    await page.goto(lmsUrl);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByLabel('Test', { exact: true }).selectOption({ label: 'Arithmetic' });
    await page.getByLabel('Student ID').fill('stu-1001');
    await page.getByLabel('Name', { exact: true }).fill('Ada Lovelace');
    await page.getByLabel('Email').fill('ada@example.org');
    await page.getByRole('button', { name: 'Assign and start the test' }).click();

    // Now on Assay: the real start link signed the student in.
    await page.getByRole('button', { name: 'Begin test' }).waitFor();
    expect(new URL(page.url()).origin).not.toBe(new URL(lmsUrl).origin);
    // The board learned of the assignment without a reload.
    await board.getByRole('cell', { name: /^Ada Lovelace/ }).waitFor();

    await page.getByRole('button', { name: 'Begin test' }).click();
    await page.getByRole('timer').waitFor();
    await group(page, '2 + 2?').getByLabel('4', { exact: true }).check();
    await group(page, '10 / 4?').getByRole('textbox').fill('2.5');
    await page.getByRole('button', { name: 'Submit test' }).click();
    await page.getByRole('dialog', { name: 'Submit your test?' }).getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('heading', { name: 'Your result' }).waitFor();

    await page.getByRole('link', { name: 'Return to Riverside College' }).click();
    await page.getByRole('heading', { name: 'Welcome back, Ada Lovelace' }).waitFor();
    expect(new URL(page.url()).origin).toBe(lmsUrl);
    const facts = await page.locator('dl').innerText();
    expect(facts).toContain('completed');
    expect(facts).toContain('2 / 2 (100%, passed)');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await shot(page, 'return-desktop');

    // The board's row, updated live from the webhooks alone: the return page never writes a score.
    const [assignmentId] = Object.keys(lms.store.state.enrolments);
    const row = board.locator(`#row-${assignmentId}`);
    await expect.poll(() => row.innerText(), { timeout: 15_000 }).toContain('2 / 2 (100%, passed)');
    expect(await row.innerText()).toContain('completed');
    expect(await board.getByRole('status').innerText()).toContain('Ada Lovelace');
    const received = Object.values(lms.store.state.events).filter((e) => e.assignmentId === assignmentId).map((e) => e.type);
    expect(received.sort()).toEqual(['exam.completed', 'exam.started']);
    expect(Object.values(lms.store.state.events).every((e) => e.livemode === false)).toBe(true);
    expect(await board.getByText('Test mode', { exact: true }).count()).toBe(1);
    expect(await seriousAxeViolations(board)).toEqual([]);
    await shot(board, 'students-desktop');
    await page.goto(lmsUrl);
    await shot(page, 'tests-desktop');

    // A forged return link for an assignment the LMS did not make shows nothing of it.
    await page.goto(`${lmsUrl}/return?partnerAssignmentId=asg_forged&status=completed`);
    await page.getByRole('heading', { name: 'Unknown assignment' }).waitFor();
    await closeContext(context);
  }, 120_000);

  it('fits a phone-width screen without sideways scrolling', async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const page = await context.newPage();
    for (const [url, name] of [['/', 'tests'], ['/students', 'students']] as const) {
      await page.goto(`${lmsUrl}${url}`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), url).toBe(true);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await shot(page, `${name}-phone`);
    }
    await closeContext(context);
  });
});
