import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { sectionedTest } from '../helpers/sectioned.js';
import { assign, createPublishedTest } from '../helpers/student.js';
import { SHOTS, VIEWPORTS, closeContext, freePort, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations, tabTo } from './browser-env.js';
import { catalogue, latinWords } from '../helpers/catalogues.js';

/**
 * A candidate takes a sectioned test in Arabic (right to left) and in
 * Japanese, from the start link to the completion page, by keyboard alone:
 * the partner's `locale` chooses the language; every page says it in
 * `<html lang dir>`; what a screen reader reads (the accessibility tree's
 * names and the live regions' announcements) is in that language, not
 * English; axe finds nothing serious and nothing scrolls sideways at 1280
 * and 360 px. Each page's screenshot is kept at both widths.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;
const INSTITUTION = 'Northfield University';
const SCRIPT: Record<string, RegExp> = { ar: /[\u0600-\u06FF]/, ja: /[\u3040-\u30FF\u4E00-\u9FFF]/ };
/** Names every language writes in Latin letters (Japanese "Web カメラ", file types, browsers). */
const TECHNICAL = ['Web', 'PDF', 'PNG', 'JPEG', 'MB', 'KB', 'kB', 'GB', 'Chrome', 'Edge', 'Firefox', 'Safari', 'JavaScript', 'UTC'];

run('a sectioned test in Arabic and in Japanese, by keyboard', () => {
  let h: Harness;
  let browser: Browser;
  let tenant: Tenant;
  let testId: string;
  let supervisedId: string;
  let authored: Set<string>;
  const input = sectionedTest({ title: 'Sectioned exam', durationMinutes: 30 });

  beforeAll(async () => {
    const port = await freePort();
    h = await createHarness({ config: { publicBaseUrl: `http://127.0.0.1:${port}`, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    tenant = await h.createTenant(INSTITUTION, ['localhost']);
    testId = await createPublishedTest(h, tenant, input);
    supervisedId = await createPublishedTest(h, tenant, { ...input, title: 'Supervised exam', proctoring: 'record' });
    // What the page may show in English: the author's texts, the institution's name and the product's.
    authored = latinWords([input, INSTITUTION, 'Assay', 'Supervised exam', ...TECHNICAL]);
    browser = await launchBrowser();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  /** The accessible names and texts the accessibility tree holds that are English and not the author's. */
  async function englishSpoken(page: Page): Promise<string[]> {
    const tree = await page.locator('body').ariaSnapshot();
    return tree
      .split('\n')
      .filter((line) => !/^\s*- \/url:/.test(line) && !/- option "/.test(line))
      .filter((line) => (line.match(/[A-Za-z]{2,}/g) ?? []).some((w) => !authored.has(w) && !/^(text|heading|button|link|radio|checkbox|group|list|listitem|timer|status|navigation|main|banner|contentinfo|region|textbox|combobox|option|paragraph|term|definition|img|alert|dialog|spinbutton|slider|level|checked|disabled|expanded|pressed|selected|table|row|cell|rowgroup|columnheader|rowheader|separator|strong|emphasis|generic|form|search|article|complementary|figure|code|time|description|true|false|mixed|UTC)$/.test(w)))
      .map((line) => line.trim());
  }

  /** The page at 1280 and at 360 px (the same page, resized, so the session and state stay), then back to 1280. */
  async function checkPage(page: Page, locale: string, name: string): Promise<void> {
    const dir = locale === 'ar' ? 'rtl' : 'ltr';
    expect(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir]), name).toEqual([locale, dir]);
    expect(await englishSpoken(page), `${locale} ${name}: English in the accessibility tree`).toEqual([]);
    const title = await page.title();
    expect((title.match(/[A-Za-z]{2,}/g) ?? []).filter((w) => !authored.has(w)), `${locale} ${name}: English in the title "${title}"`).toEqual([]);
    for (const size of ['desktop', 'phone'] as const) {
      await page.setViewportSize(VIEWPORTS[size]);
      expect(await seriousAxeViolations(page), `${locale} ${name} ${size}`).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), `${locale} ${name} ${size}: sideways scroll`).toBeLessThanOrEqual(0);
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, `student-${locale}-${name}-${size}.png`), fullPage: true });
    }
    await page.setViewportSize(VIEWPORTS.desktop);
  }

  for (const locale of ['ar', 'ja'] as const) {
    it(`is taken in ${locale} from the start link to the completion page`, async () => {
      const messages = catalogue(locale);
      const a = await assign(h, tenant, { testId, externalUserId: `lang-${locale}`, locale });
      const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
      context.setDefaultTimeout(30_000);
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      try {
        await page.goto(a.startUrl);
        await checkPage(page, locale, 'intro');
        expect(await page.getByRole('button', { name: messages['intro.beginButton']! }).count()).toBe(1);
        await tabTo(page, '#begin-button');
        await page.keyboard.press('Enter');
        await page.getByRole('timer').waitFor();
        await checkPage(page, locale, 'test');

        // Answer the first drawn question by keyboard; what the live regions then say is in the language.
        await tabTo(page, 'fieldset[data-question-id] input[type=radio]');
        await page.keyboard.press('Space');
        await expect.poll(() => page.locator('#save-status').getAttribute('data-state'), { timeout: 15_000 }).toBe('saved');
        expect(SCRIPT[locale]!.test(await page.locator('#save-status').innerText()), `${locale}: the save state`).toBe(true);
        for (const live of await page.locator('[role=status], [aria-live]').allInnerTexts()) {
          if (live.trim()) expect(SCRIPT[locale]!.test(live) || !/[A-Za-z]{2,}/.test(live), `${locale}: announced "${live}"`).toBe(true);
        }

        await tabTo(page, '#open-submit');
        await page.keyboard.press('Enter');
        await checkPage(page, locale, 'confirm');
        await tabTo(page, '#confirm-submit');
        await page.keyboard.press('Enter');
        // The completion page's Return link (the pages before it have buttons, not links, there).
        await page.locator('.actions a.button.primary').waitFor();
        await checkPage(page, locale, 'completion');
        expect(problems).toEqual([]);
      } finally {
        await closeContext(context);
      }
    }, 240_000);

    it(`shows the other pages a candidate may meet in ${locale}: a bad link, a supervised test's camera check, a withdrawn test`, async () => {
      const context = await browser.newContext({ viewport: VIEWPORTS.desktop, extraHTTPHeaders: { 'accept-language': locale } });
      const page = await context.newPage();
      try {
        const origin = new URL((await assign(h, tenant, { testId, externalUserId: `probe-${locale}` })).startUrl).origin;
        await page.goto(`${origin}/s/not-a-real-link`);
        await checkPage(page, locale, 'invalid-link');

        const supervised = await assign(h, tenant, { testId: supervisedId, externalUserId: `cam-${locale}`, locale });
        await page.goto(supervised.startUrl);
        await checkPage(page, locale, 'camera-check');

        const withdrawn = await assign(h, tenant, { testId, externalUserId: `gone-${locale}`, locale });
        expect((await h.partner(tenant, 'POST', `/api/partner/v1/assignments/${withdrawn.assignmentId}/cancel`)).statusCode).toBe(200);
        await page.goto(withdrawn.startUrl);
        await checkPage(page, locale, 'withdrawn');
      } finally {
        await closeContext(context);
      }
    }, 120_000);
  }
});
