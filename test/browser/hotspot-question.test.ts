import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { imageExample } from '../helpers/image-questions.js';
import { assign, createPublishedTest, readAssignment } from '../helpers/student.js';
import { VIEWPORTS, freePort, hasBrowser, launchBrowser, requireBrowser, closeContext } from './browser-env.js';
import { checkLayout, storedAnswers, tabTo } from './image-question-kit.js';

/**
 * A hotspot question in Chromium: each region a toggle button named by its
 * label, chosen with the keyboard alone and autosaved; the image's outline
 * follows the button; a reload keeps the choice; on a phone a tap on the
 * region does what its button does; axe clean and no sideways scroll at
 * 1280 and 360 px; the submission is marked.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

run('a hotspot question in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  let tenant: Tenant;
  let testId: string;
  beforeAll(async () => {
    const port = await freePort();
    h = await createHarness({ config: { publicBaseUrl: `http://127.0.0.1:${port}`, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    tenant = await h.createTenant('Northfield University', ['localhost']);
    testId = await createPublishedTest(h, tenant, await imageExample(h, 'hotspot'));
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const toggle = (id: string) => `.region-toggle[data-region-id="${id}"]`;

  it('is answered by keyboard and by touch, keeps the answer over a reload, and is marked', async () => {
    const a = await assign(h, tenant, { testId, externalUserId: 'hotspot-kbd' });
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(a.startUrl);
    await tabTo(page, '#begin-button');
    await page.keyboard.press('Enter');
    await page.getByRole('timer').waitFor();

    // Every region is a button named by its label; the image is named by its description.
    await page.getByRole('img', { name: /An unlabelled diagram of the heart/ }).waitFor();
    for (const label of ['Upper left chamber', 'Upper right chamber', 'Lower left chamber', 'Lower right chamber', 'Arch at the top']) {
      expect(await page.getByRole('button', { name: label, pressed: false }).count(), label).toBe(1);
    }
    await tabTo(page, toggle('rv'));
    await page.keyboard.press('Space');
    await tabTo(page, toggle('lv'));
    await page.keyboard.press('Enter');
    expect(await page.locator('.region-outline[data-region-id="lv"]').getAttribute('data-state')).toBe('on');
    expect(await page.locator('.region-outline[data-region-id="lv"]').getAttribute('data-focus')).toBe('yes');
    await expect.poll(() => storedAnswers(h, a.assignmentId), { timeout: 15_000 }).toEqual({ ventricles: ['rv', 'lv'] });
    expect(await page.locator('#answered-count').textContent()).toBe('1 of 1 answered');
    // A fourth choice past maxChoices 3 is refused and said.
    await tabTo(page, toggle('ra'));
    await page.keyboard.press('Space');
    await tabTo(page, toggle('la'));
    await page.keyboard.press('Space');
    expect(await page.locator(toggle('la')).getAttribute('aria-pressed')).toBe('false');
    expect(await page.locator('.region-live').textContent()).toBe('You can choose at most 3 regions. Clear one first.');
    await tabTo(page, toggle('ra'));
    await page.keyboard.press('Space');
    // The choice and its clearing are both saved before the page is left (the stored value is the same before and after).
    await expect.poll(() => page.locator('#save-status').textContent(), { timeout: 30_000 }).toBe('Saved');
    await expect.poll(() => storedAnswers(h, a.assignmentId), { timeout: 15_000 }).toEqual({ ventricles: ['rv', 'lv'] });
    await checkLayout(page, 'desktop', 'ventricles', 'hotspot');

    await page.reload();
    await page.getByRole('button', { name: 'Lower left chamber', pressed: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Lower right chamber', pressed: true }).count()).toBe(1);
    expect(await page.locator('.region-outline[data-region-id="rv"]').getAttribute('data-state')).toBe('on');

    // On a phone, a tap on a region of the image chooses it, and a second tap clears it.
    const phone = await browser.newContext({ viewport: VIEWPORTS.phone, hasTouch: true, isMobile: true });
    const small = await phone.newPage();
    await small.goto(a.startUrl);
    await small.getByRole('timer').waitFor();
    await small.locator('.region-picture img').evaluate((i: HTMLImageElement) => (i.complete ? null : new Promise((r) => i.addEventListener('load', r))));
    await small.locator('.region-outline[data-region-id="ao"] .region-shape').tap();
    expect(await small.locator(toggle('ao')).getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => storedAnswers(h, a.assignmentId), { timeout: 15_000 }).toEqual({ ventricles: ['rv', 'lv', 'ao'] });
    await small.locator('.region-outline[data-region-id="ao"] .region-shape').tap();
    await expect.poll(() => storedAnswers(h, a.assignmentId), { timeout: 15_000 }).toEqual({ ventricles: ['rv', 'lv'] });
    await expect.poll(() => small.locator('#save-status').textContent(), { timeout: 30_000 }).toBe('Saved');
    await checkLayout(small, 'phone', 'ventricles', 'hotspot');
    await closeContext(phone);

    await page.reload();
    await tabTo(page, '#open-submit');
    await page.keyboard.press('Enter');
    await tabTo(page, '#confirm-submit');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await readAssignment(h, tenant, a.assignmentId)).result?.score ?? null, { timeout: 15_000 }).toMatchObject({ points: 4, maxPoints: 4 });
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 240_000);
});
