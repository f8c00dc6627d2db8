import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { assign, createPublishedTest, readAssignment } from '../helpers/student.js';
import { SHOTS, VIEWPORTS, freePort, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations, closeContext, tabTo } from './browser-env.js';

/**
 * A slider question in Chromium: a range input named by the prompt, not
 * answered until moved, set with the arrow keys, cleared with Clear, the
 * value autosaved and shown again after a reload, set by a tap on a phone,
 * no sideways scroll at 1280 and 360 px, axe clean, and the submission
 * marked within the tolerance.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;
const EXAMPLE = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/examples/tests/slider.json'), 'utf8')) as TestInput;
const PROMPT = 'At what temperature, in °C, does water boil at sea level?';

run('a slider question in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  let tenant: Tenant;
  let testId: string;
  beforeAll(async () => {
    const port = await freePort();
    h = await createHarness({ config: { publicBaseUrl: `http://127.0.0.1:${port}`, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    tenant = await h.createTenant('Northfield University', ['localhost']);
    testId = await createPublishedTest(h, tenant, EXAMPLE);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const stored = async (assignmentId: string): Promise<unknown> =>
    ((await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}`)).json().items as Array<{ questionId: string; answer: unknown }>).find((i) => i.questionId === 'boiling')?.answer ?? null;
  async function checkLayout(page: Page, size: keyof typeof VIEWPORTS): Promise<void> {
    expect(await seriousAxeViolations(page), size).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), size).toBeLessThanOrEqual(VIEWPORTS[size].width);
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.locator('fieldset[data-question-id="boiling"]').screenshot({ path: path.join(SHOTS, `question-slider-${size}.png`) });
  }

  it('is set by the arrow keys, cleared, kept over a reload, set by touch and marked within its tolerance', async () => {
    const a = await assign(h, tenant, { testId, externalUserId: 'slider-kbd' });
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(a.startUrl);
    await tabTo(page, '#begin-button');
    await page.keyboard.press('Enter');
    await page.getByRole('timer').waitFor();

    // The slider is named by the prompt and is no answer until moved.
    await expect.poll(() => page.getByRole('slider', { name: PROMPT }).count()).toBe(1);
    expect(await page.locator('.slider-state').textContent()).toBe('Not answered yet');
    expect(await page.locator('.slider-value').textContent()).toBe('');
    expect(await page.locator('#answered-count').textContent()).toBe('0 of 1 answered');

    await tabTo(page, '#q1-range');
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
    expect(await page.locator('.slider-value').textContent()).toBe('100');
    expect(await page.locator('.slider-state').textContent()).toBe('');
    await expect.poll(() => stored(a.assignmentId), { timeout: 15_000 }).toBe(100);
    expect(await page.locator('#answered-count').textContent()).toBe('1 of 1 answered');

    // Clear makes it unanswered again.
    await tabTo(page, '.slider-clear');
    await page.keyboard.press('Enter');
    expect(await page.locator('.slider-state').textContent()).toBe('Not answered yet');
    await expect.poll(() => stored(a.assignmentId), { timeout: 15_000 }).toBeNull();

    await tabTo(page, '#q1-range');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => stored(a.assignmentId), { timeout: 15_000 }).toBe(95);
    await checkLayout(page, 'desktop');

    await page.reload();
    expect(await page.locator('#q1-range').inputValue()).toBe('95');
    expect(await page.locator('.slider-value').textContent()).toBe('95');

    // On a phone a tap on the track sets a value.
    const phone = await browser.newContext({ viewport: VIEWPORTS.phone, hasTouch: true, isMobile: true });
    const small = await phone.newPage();
    await small.goto(a.startUrl);
    await small.getByRole('timer').waitFor();
    const box = (await small.locator('#q1-range').boundingBox())!;
    await small.tap('#q1-range', { position: { x: box.width * 0.1, y: box.height / 2 } });
    const tapped = Number(await small.locator('#q1-range').inputValue());
    expect(tapped).toBeLessThan(50);
    await expect.poll(() => stored(a.assignmentId), { timeout: 15_000 }).toBe(tapped);
    await checkLayout(small, 'phone');
    await closeContext(phone);

    await page.reload();
    await tabTo(page, '#q1-range');
    await page.keyboard.press('End');
    for (let i = 0; i < 9; i++) await page.keyboard.press('ArrowLeft');
    await expect.poll(() => stored(a.assignmentId), { timeout: 15_000 }).toBe(105);
    await tabTo(page, '#open-submit');
    await page.keyboard.press('Enter');
    await tabTo(page, '#confirm-submit');
    await page.keyboard.press('Enter');
    // 105 is within 100 ± 5.
    await expect.poll(async () => (await readAssignment(h, tenant, a.assignmentId)).result?.score ?? null, { timeout: 15_000 }).toMatchObject({ points: 1, maxPoints: 1 });
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 240_000);
});
