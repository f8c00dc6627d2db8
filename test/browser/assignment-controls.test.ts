import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { assign } from '../helpers/student.js';
import { freePort, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations, startCallbackSite, closeContext } from './browser-env.js';

/**
 * An open test page learns of the institution's changes without a reload:
 * the status stream (`/events`, pushed on each change) moves the timer after extra
 * time is granted and announces it in a polite live region, and shows the
 * withdrawal after a cancellation. Real time here (the system clock), since
 * the page counts down in real time.
 */
describe.runIf(requireBrowser && !hasBrowser)('browser tests', () => {
  it('need Chromium when ASSAY_REQUIRE_BROWSER=1', () => {
    expect.fail('ASSAY_REQUIRE_BROWSER=1 but no Chromium was found (set ASSAY_CHROMIUM_PATH or apt-get install -y chromium)');
  });
});

describe.skipIf(!hasBrowser)('assignment controls on an open test page', () => {
  let h: Harness;
  let browser: Browser;
  let callback: Awaited<ReturnType<typeof startCallbackSite>>;
  let tenant: Tenant;

  beforeAll(async () => {
    const port = await freePort();
    h = await createHarness({ config: { publicBaseUrl: `http://127.0.0.1:${port}`, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    callback = await startCallbackSite();
    tenant = await h.createTenant('Northfield University', ['localhost']);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await callback?.close();
    await h?.close();
  });

  async function begun(externalUserId: string): Promise<{ context: BrowserContext; page: Page; problems: string[]; assignmentId: string }> {
    const a = await assign(h, tenant, { externalUserId, callbackUrl: `${callback.origin}/callback` });
    // UTC, so the end time the page announces can be computed here.
    const context = await browser.newContext({ viewport: { width: 360, height: 800 }, timezoneId: 'UTC' });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) problems.push(m.text());
    });
    await page.goto(a.startUrl);
    await page.getByRole('button', { name: 'Begin test' }).click();
    await page.getByRole('timer').waitFor();
    return { context, page, problems, assignmentId: a.assignmentId };
  }

  const secondsLeft = async (page: Page) => {
    const text = (await page.getByRole('timer').textContent()) ?? '';
    return text.split(':').map(Number).reduce((acc, n) => acc * 60 + n, 0);
  };

  it('the timer jumps forward within seconds of a PATCH, and the live region announces the new end time', async () => {
    const { context, page, problems, assignmentId } = await begun('timer-1');
    const before = await secondsLeft(page);
    expect(before).toBeGreaterThan(19 * 60);
    expect(before).toBeLessThanOrEqual(20 * 60);
    const notice = page.locator('#time-notice');
    expect(await notice.getAttribute('role')).toBe('status');
    expect(await notice.getAttribute('aria-live')).toBe('polite');
    expect(await notice.textContent()).toBe('');

    const res = await h.partner(tenant, 'PATCH', `/api/partner/v1/assignments/${assignmentId}`, { accommodations: { extraTimeMinutes: 30 } });
    expect(res.statusCode, res.body).toBe(200);
    const { rows } = await h.pool.query('SELECT deadline_at FROM attempts WHERE assignment_id = $1', [assignmentId]);
    const deadline: Date = rows[0].deadline_at;

    // Pushed on the page's event stream: well under the 10 s of the fallback poll, with no reload.
    await expect.poll(() => secondsLeft(page), { timeout: 5_000, interval: 250 }).toBeGreaterThan(49 * 60);
    expect(await secondsLeft(page)).toBeLessThanOrEqual(50 * 60);
    const text = (await notice.textContent()) ?? '';
    expect(text).toMatch(/^You have been given more time: the test now ends at \d\d:\d\d\.$/);
    const announced = text.match(/(\d\d):(\d\d)/)!;
    const shownMinutes = Number(announced[1]) * 60 + Number(announced[2]);
    const expectedMinutes = deadline.getUTCHours() * 60 + deadline.getUTCMinutes();
    // The page corrects its clock by the server's; allow the minute to round either way.
    expect(Math.min(Math.abs(shownMinutes - expectedMinutes), 1440 - Math.abs(shownMinutes - expectedMinutes))).toBeLessThanOrEqual(1);
    // The same document: the answers' fields are still there and usable, the live region kept its place.
    expect(await page.getByRole('button', { name: 'Submit test' }).isEnabled()).toBe(true);
    expect(await page.getByRole('status').filter({ hasText: 'more time' }).count()).toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await closeContext(context);
  });

  it('after a cancellation the page shows that the test was withdrawn, with the return button', async () => {
    const { context, page, problems, assignmentId } = await begun('cancel-1');
    await page.getByRole('group', { name: /2 \+ 2\?/ }).getByLabel('4', { exact: true }).check();
    // Sent after a 0.3 s pause, then the request: more than expect.poll's default second on a busy machine.
    await expect.poll(() => page.locator('#save-status').textContent(), { timeout: 10_000 }).toBe('Saved');

    const res = await h.partner(tenant, 'POST', `/api/partner/v1/assignments/${assignmentId}/cancel`);
    expect(res.statusCode).toBe(200);

    await page.getByRole('heading', { level: 1, name: 'This test has been withdrawn' }).waitFor({ timeout: 5_000 });
    expect(page.url()).toMatch(new RegExp(`/a/${assignmentId}$`));
    const back = page.getByRole('link', { name: 'Return to Northfield University' });
    expect(await back.getAttribute('href')).toMatch(/^http:\/\/localhost:\d+\/callback\?.*status=cancelled/);
    expect(await seriousAxeViolations(page)).toEqual([]);
    // The answer saved before the cancellation is kept for the institution.
    const marking = (await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}`)).json();
    expect(marking.items[0].answer).toBe('b');

    await back.click();
    await page.getByRole('heading', { name: 'Back at the partner' }).waitFor();
    expect(problems).toEqual([]);
    await closeContext(context);
  });
});
