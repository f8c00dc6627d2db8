import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { imageExample } from '../helpers/image-questions.js';
import { assign, createPublishedTest, readAssignment } from '../helpers/student.js';
import { VIEWPORTS, freePort, hasBrowser, launchBrowser, requireBrowser, closeContext } from './browser-env.js';
import { checkLayout, storedAnswers, tabTo } from './image-question-kit.js';

/**
 * A graphic order question in Chromium: the regions listed in a scrambled
 * order with Move up / Move down buttons named by each label, put in order
 * with the keyboard alone (each move announced, the image renumbered) and
 * autosaved; a reload keeps the order; on a phone a tap on a region moves the
 * focus to its row; axe clean and no sideways scroll at 1280 and 360 px; marked.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;
const CORRECT = ['car-park', 'mill', 'hill', 'ford'];

run('a graphic order question in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  let tenant: Tenant;
  let testId: string;
  beforeAll(async () => {
    const port = await freePort();
    h = await createHarness({ config: { publicBaseUrl: `http://127.0.0.1:${port}`, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    tenant = await h.createTenant('Northfield University', ['localhost']);
    testId = await createPublishedTest(h, tenant, await imageExample(h, 'graphic_order'));
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const shownOrder = (page: Page) => page.locator('.region-order li').evaluateAll((lis) => lis.map((li) => (li as HTMLElement).dataset.itemId));
  const mark = (page: Page, id: string) => page.locator(`.region-outline[data-region-id="${id}"] .region-mark`).textContent();

  it('is put in order by keyboard, keeps the order over a reload, answers a tap, and is marked', async () => {
    const a = await assign(h, tenant, { testId, externalUserId: 'order-kbd' });
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(a.startUrl);
    await tabTo(page, '#begin-button');
    await page.keyboard.press('Enter');
    await page.getByRole('timer').waitFor();

    const first = await shownOrder(page);
    expect(first).not.toEqual(CORRECT);
    expect(await mark(page, first[0]!)).toBe('1');
    expect(await page.getByRole('button', { name: 'Move up: Old mill' }).count()).toBe(1);
    for (let pos = 0; pos < CORRECT.length; pos++) {
      const from = (await shownOrder(page)).indexOf(CORRECT[pos]!);
      if (from === pos) continue;
      await tabTo(page, `.region-order li[data-item-id="${CORRECT[pos]}"] [data-region-move=up]`);
      for (let k = from; k > pos; k--) await page.keyboard.press('Enter');
      const label = await page.locator(`.region-order li[data-item-id="${CORRECT[pos]}"] .order-text`).textContent();
      expect(await page.locator('.order-live').textContent()).toBe(`${label} moved to position ${pos + 1} of 4`);
      expect(await mark(page, CORRECT[pos]!)).toBe(String(pos + 1));
    }
    await expect.poll(() => storedAnswers(h, a.assignmentId), { timeout: 15_000 }).toEqual({ 'walk-order': CORRECT });
    expect(await page.locator('#answered-count').textContent()).toBe('1 of 1 answered');
    await checkLayout(page, 'desktop', 'walk-order', 'graphic_order');

    await page.reload();
    expect(await shownOrder(page)).toEqual(CORRECT);
    expect(await mark(page, 'ford')).toBe('4');

    const phone = await browser.newContext({ viewport: VIEWPORTS.phone, hasTouch: true, isMobile: true });
    const small = await phone.newPage();
    await small.goto(a.startUrl);
    await small.getByRole('timer').waitFor();
    await small.locator('.region-picture img').evaluate((i: HTMLImageElement) => (i.complete ? null : new Promise((r) => i.addEventListener('load', r))));
    await small.locator('.region-outline[data-region-id="hill"] .region-shape').tap();
    expect(await small.evaluate(() => (document.activeElement as HTMLElement).getAttribute('aria-label'))).toBe('Move up: Hill top');
    await checkLayout(small, 'phone', 'walk-order', 'graphic_order');
    await closeContext(phone);

    await tabTo(page, '#open-submit');
    await page.keyboard.press('Enter');
    await tabTo(page, '#confirm-submit');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await readAssignment(h, tenant, a.assignmentId)).result?.score ?? null, { timeout: 15_000 }).toMatchObject({ points: 4, maxPoints: 4 });
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 240_000);
});
