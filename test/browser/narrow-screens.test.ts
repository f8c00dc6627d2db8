import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { uploadImage } from '../helpers/image-questions.js';
import { assign, createPublishedTest } from '../helpers/student.js';
import { testModeTenant } from '../helpers/test-mode.js';
import { SHOTS, closeContext, freePort, hasBrowser, launchBrowser, requireBrowser } from './browser-env.js';
import { SENTENCE, WIDE_SVG, WORD, longTextsTest } from './long-texts.js';

/**
 * The student pages at the narrowest phones (320 and 360 px) with a test of
 * every question type whose texts are wider than the screen (long-texts.ts):
 * on every page of the journey (the start page, the test with its answers
 * given, the submit dialog, the completion page) the page never scrolls
 * sideways and no control, image, table or code block reaches past the
 * viewport's edges. A wide thing may scroll inside its own box (a table, a
 * code block, a formula); the box itself stays inside the screen. A long
 * option keeps its whole text for assistive technology.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

interface Layout {
  scrollWidth: number;
  innerWidth: number;
  outside: string[];
}

/**
 * Runs in the page: the document's width, every shown element (controls, images, tables, code, formulas, their
 * wrappers) and every run of text whose box leaves the viewport. Inside a box that scrolls or clips sideways (a
 * table, a code block, a formula) only that box must fit: what is in it scrolls there, not the page.
 */
function measure(): Layout {
  const clips = (el: Element) => ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(el).overflowX);
  const insideScroller = (el: Element) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) if (clips(p)) return true;
    return false;
  };
  const where = (el: Element) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.classList.length ? `.${[...el.classList].join('.')}` : ''}`;
  const past = (r: DOMRect) => r.left < -0.5 || r.right > window.innerWidth + 0.5;
  const outside: string[] = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    // Nothing hidden counts; the screen-reader-only texts are 1 px boxes.
    if (r.width <= 1 || r.height <= 1 || el.closest('.sr-only, [hidden]') || insideScroller(el)) continue;
    if (past(r)) outside.push(`${where(el)} (${Math.round(r.left)}…${Math.round(r.right)} px): "${(el.textContent ?? '').trim().slice(0, 50)}"`);
  }
  // Text that runs out of its box (a word with no place to break) widens the page though its element fits.
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || !node.textContent?.trim() || el.closest('.sr-only, [hidden], script, style') || clips(el) || insideScroller(el)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    if (r.width > 1 && past(r)) outside.push(`text in ${where(el)} (${Math.round(r.left)}…${Math.round(r.right)} px): "${node.textContent.trim().slice(0, 50)}"`);
  }
  return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, outside };
}

run('the student pages with texts wider than a phone screen', () => {
  let h: Harness;
  let browser: Browser;
  let sandbox: Tenant;
  let testId: string;
  let plainId: string;

  beforeAll(async () => {
    const port = await freePort();
    h = await createHarness({ config: { publicBaseUrl: `http://127.0.0.1:${port}`, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    const tenant = await h.createTenant(`Northfield University of ${WORD}`, ['localhost']);
    // A test-mode key: its banner and the timer bar's Test mode tag are on the pages too.
    sandbox = await testModeTenant(h, tenant);
    const image = await uploadImage(h, WIDE_SVG);
    testId = await createPublishedTest(h, tenant, longTextsTest(image));
    plainId = await createPublishedTest(h, tenant, longTextsTest(image, 'plain'));
    browser = await launchBrowser();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  async function fits(page: Page, label: string): Promise<void> {
    const found = await page.evaluate(measure);
    expect.soft(found.outside, `${label}: boxes past the viewport's edge`).toEqual([]);
    expect.soft(found.scrollWidth, `${label}: the page scrolls sideways`).toBeLessThanOrEqual(found.innerWidth);
  }

  for (const width of [320, 360, 1280]) {
    it(`fits ${width} px on every page: start, test with answers, submit dialog, completion`, async () => {
      const a = await assign(h, sandbox, { testId, externalUserId: `wide-${width}`, callbackUrl: 'https://localhost/return' });
      const context = await browser.newContext({ viewport: { width, height: width > 1000 ? 860 : 760 } });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      try {
        await page.goto(a.startUrl);
        await fits(page, 'start page');
        await page.locator('#begin-button').click();
        await page.waitForSelector('#open-submit');
        await fits(page, 'test page');

        // The long answers chosen: a select shows its longest option, a pair and a chosen phrase their whole text.
        const stem = page.getByRole('combobox', { name: `Stem: ${SENTENCE} ${WORD}` });
        await stem.selectOption('c1');
        // The option keeps its whole text for screen readers, however the select is drawn.
        expect(await stem.locator('option[value="c1"]').textContent()).toBe(`Choice: ${SENTENCE} ${WORD}`);
        await page.locator('fieldset[data-question-id="fb"] select').selectOption('f1');
        await page.locator('fieldset[data-question-id="as"] select.assoc-first').selectOption('a1');
        await page.locator('fieldset[data-question-id="as"] select.assoc-second').selectOption('a3');
        await page.locator('fieldset[data-question-id="as"] .assoc-add').click();
        await page.locator('fieldset[data-question-id="as"] .assoc-pair').waitFor();
        await page.locator('fieldset[data-question-id="ht"] .hot-phrase').nth(1).click();
        await page.locator('fieldset[data-question-id="sp"] .sp-add').click();
        await page.locator('fieldset[data-question-id="sp"] .sp-list li').waitFor();
        await page.locator('fieldset[data-question-id="hs"] .region-toggle').first().click();
        await fits(page, 'test page, answered');
        if (width === 360 || width === 1280) {
          // The field report's case in view: the matching question's selects with a choice longer than the screen.
          await expect.poll(() => page.locator('#save-status').textContent(), { timeout: 15_000 }).toBe('Saved');
          await page.locator('fieldset[data-question-id="ma"]').evaluate((el) => el.scrollIntoView({ block: 'start' }));
          fs.mkdirSync(SHOTS, { recursive: true });
          await page.screenshot({ path: path.join(SHOTS, `student-long-texts-${width === 360 ? 'phone' : 'desktop'}.png`) });
        }

        await page.locator('#open-submit').click();
        await page.locator('#submit-dialog[open]').waitFor();
        await fits(page, 'submit dialog');
        await page.locator('#confirm-submit').click();
        await page.waitForURL(/\/a\/asg_/);
        await page.waitForSelector('.button.primary');
        await fits(page, 'completion page');
        expect(problems).toEqual([]);
      } finally {
        await closeContext(context);
      }
    }, 120_000);
  }

  it('fits 320 px with the same texts written as plain text', async () => {
    const a = await assign(h, sandbox, { testId: plainId, externalUserId: 'wide-plain', callbackUrl: 'https://localhost/return' });
    const context = await browser.newContext({ viewport: { width: 320, height: 760 } });
    const page = await context.newPage();
    try {
      await page.goto(a.startUrl);
      await page.locator('#begin-button').click();
      await page.waitForSelector('#open-submit');
      await fits(page, 'test page, plain text');
    } finally {
      await closeContext(context);
    }
  }, 120_000);
});
