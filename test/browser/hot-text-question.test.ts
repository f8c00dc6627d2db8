import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { assign, createPublishedTest, readAssignment } from '../helpers/student.js';
import { SHOTS, VIEWPORTS, freePort, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations, closeContext, tabTo } from './browser-env.js';

/**
 * A hot_text question in Chromium: each phrase a toggle button in the text,
 * chosen by keyboard alone, a press past maxChoices refused with a polite
 * announcement, the answer autosaved and pressed again after a reload,
 * unchosen by a tap on a phone, no sideways scroll at 1280 and 360 px, axe
 * clean, and the submission marked with partial credit.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;
const EXAMPLE = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/examples/tests/hot_text.json'), 'utf8')) as TestInput;

run('a hot_text question in a real browser', () => {
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

  const phrase = (id: string) => `.hot-phrase[data-hotspot-id="${id}"]`;
  const stored = async (assignmentId: string): Promise<unknown> =>
    ((await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}`)).json().items as Array<{ questionId: string; answer: unknown }>).find((i) => i.questionId === 'verbs')?.answer ?? null;
  async function checkLayout(page: Page, size: keyof typeof VIEWPORTS): Promise<void> {
    expect(await seriousAxeViolations(page), size).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), size).toBeLessThanOrEqual(VIEWPORTS[size].width);
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.locator('fieldset[data-question-id="verbs"]').screenshot({ path: path.join(SHOTS, `question-hot_text-${size}.png`) });
  }

  it('chooses phrases by keyboard, refuses one too many, keeps the answer over a reload, unchooses by touch and marks partial credit', async () => {
    const a = await assign(h, tenant, { testId, externalUserId: 'hot-text-kbd' });
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(a.startUrl);
    await tabTo(page, '#begin-button');
    await page.keyboard.press('Enter');
    await page.getByRole('timer').waitFor();

    // Each phrase is a toggle button named by its phrase, inside the text.
    await expect.poll(() => page.getByRole('button', { name: 'purred', pressed: false }).count()).toBe(1);
    for (const id of ['sat', 'purred', 'softly']) {
      await tabTo(page, phrase(id));
      await page.keyboard.press(id === 'purred' ? 'Space' : 'Enter');
      expect(await page.locator(phrase(id)).getAttribute('aria-pressed')).toBe('true');
    }
    expect(await page.locator('.hot-count').textContent()).toBe('3 phrases chosen of at most 3.');
    // A fourth press is refused and said politely.
    await tabTo(page, phrase('mat'));
    await page.keyboard.press('Enter');
    expect(await page.locator(phrase('mat')).getAttribute('aria-pressed')).toBe('false');
    expect(await page.locator('.hot-live').textContent()).toBe('You can choose at most 3 phrases. Press a chosen phrase to unchoose it first.');
    await expect.poll(() => stored(a.assignmentId), { timeout: 15_000 }).toEqual(['sat', 'purred', 'softly']);
    expect(await page.locator('#answered-count').textContent()).toBe('1 of 1 answered');
    await checkLayout(page, 'desktop');

    await page.reload();
    expect(await page.getByRole('button', { pressed: true }).evaluateAll((bs) => bs.map((b) => b.textContent))).toEqual(['sat', 'purred', 'softly']);

    // On a phone, a tap unchooses "softly".
    const phone = await browser.newContext({ viewport: VIEWPORTS.phone, hasTouch: true, isMobile: true });
    const small = await phone.newPage();
    await small.goto(a.startUrl);
    await small.getByRole('timer').waitFor();
    await small.tap(phrase('softly'));
    expect(await small.locator(phrase('softly')).getAttribute('aria-pressed')).toBe('false');
    await expect.poll(() => stored(a.assignmentId), { timeout: 15_000 }).toEqual(['sat', 'purred']);
    await checkLayout(small, 'phone');
    await closeContext(phone);

    await page.reload();
    await tabTo(page, '#open-submit');
    await page.keyboard.press('Enter');
    await tabTo(page, '#confirm-submit');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await readAssignment(h, tenant, a.assignmentId)).result?.score ?? null, { timeout: 15_000 }).toMatchObject({ points: 2, maxPoints: 2 });
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 240_000);
});
