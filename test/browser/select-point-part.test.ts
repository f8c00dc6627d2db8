import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createRequire } from 'node:module';
import { jsonForScript, PAGE_HEADERS } from '../../src/platform/web/html.js';
import { englishTranslator } from '../../src/platform/i18n/catalogue.js';
import { plainTexts } from '../../src/modules/catalog/content/page-texts.js';
import { selectPointType } from '../../src/modules/catalog/question-types/select-point/select-point.js';
import { heart } from '../../src/modules/catalog/question-types/select-point/example-question.js';
import { VIEWPORTS, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations, closeContext } from './browser-env.js';

/**
 * select_point's page part and student.js in Chromium, on a page of their
 * own under the student pages' CSP and stylesheet: points placed, moved and
 * removed by keyboard alone with each change announced, a tap on a phone
 * placing a point where it lands, never more than maxPoints, axe clean and
 * no sideways scroll at 1280 and 360 px.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;
const ORIGIN = 'http://assay.test';
const root = path.resolve(import.meta.dirname, '../..');
const HEART_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300" viewBox="0 0 400 300"><rect width="400" height="300" fill="#fdf6f0"/><rect x="100" y="100" width="100" height="100" fill="#e8a0a0"/><circle cx="250" cy="80" r="30" fill="#e0b0b0"/><polygon points="220,150 300,150 260,230" fill="#a0b8e8"/><rect x="180" y="180" width="60" height="60" fill="#c8a0e0" fill-opacity="0.7"/></svg>`;

// Stands in for the page's question-fields.js: the registry the type's script joins, and the page's calls into it.
const SHIM = `window.AssayQuestionTypes = { types: {}, register(type, impl) { this.types[type] = impl; } };`;
const BOOT = `(() => {
  const fs = document.querySelector('fieldset[data-type="select_point"]');
  const impl = window.AssayQuestionTypes.types.select_point;
  window.changes = 0;
  fs.addEventListener('change', () => { window.changes += 1; });
  window.readAnswer = () => impl.read(fs);
  window.writeAnswer = (v) => impl.write(fs, v);
  impl.setup(fs);
})();`;

function pageHtml(value: unknown): string {
  const part = selectPointType.page(heart, { id: 'q1', where: 'question 1', value: value as never, texts: plainTexts, shown: { optionOrder: {}, itemOrder: {} } });
  // The type's messages and their formatter, as the student page's layout sends them (before the page's other scripts).
  const messages = jsonForScript({ locale: 'en-GB', messages: englishTranslator().messages(selectPointType.clientMessages ?? []) });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Select point</title>
<script type="application/json" id="assay-messages">${messages}</script><script type="module" src="/assets/i18n.js"></script>
<link rel="stylesheet" href="/student.css"><script defer src="/shim.js"></script><script defer src="/select-point.js"></script><script defer src="/boot.js"></script></head>
<body><main><fieldset class="question" data-type="select_point" aria-labelledby="legend"><legend id="legend">Question 1 (4 points) ${heart.prompt}</legend>${part}</fieldset></main></body></html>`;
}

run('the select_point page part in a real browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  async function open(context: BrowserContext, value: unknown = null): Promise<Page> {
    const files: Record<string, [string, string]> = {
      '/q': ['text/html; charset=utf-8', pageHtml(value)],
      // The page's sheet and the type's own, as the student page loads them.
      '/student.css': ['text/css', ['src/modules/student/assets/student.css', 'src/modules/catalog/question-types/select-point/student.css'].map((f) => fs.readFileSync(path.join(root, f), 'utf8')).join('\n')],
      '/assets/i18n.js': ['text/javascript', fs.readFileSync(path.join(root, 'src/modules/student/assets/i18n.js'), 'utf8')],
      '/assets/vendor/intl-messageformat.js': ['text/javascript', fs.readFileSync(path.join(path.dirname(createRequire(import.meta.url).resolve('intl-messageformat')), 'intl-messageformat.iife.js'), 'utf8')],
      '/shim.js': ['text/javascript', SHIM],
      '/select-point.js': ['text/javascript', fs.readFileSync(path.join(root, 'src/modules/catalog/question-types/select-point/student.js'), 'utf8')],
      '/boot.js': ['text/javascript', BOOT],
      '/a/content-assets/ast_heart': ['image/svg+xml', HEART_SVG],
    };
    await context.route(`${ORIGIN}/**`, (route) => {
      const file = files[new URL(route.request().url()).pathname];
      return file ? route.fulfill({ status: 200, headers: { ...PAGE_HEADERS, 'content-type': file[0] }, body: file[1] }) : route.fulfill({ status: 404 });
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    await page.goto(`${ORIGIN}/q`);
    await page.waitForFunction(() => (document.querySelector('.sp-image') as HTMLImageElement).naturalWidth > 0);
    expect(problems).toEqual([]);
    return page;
  }
  const live = (page: Page) => page.locator('.sp-live');
  const answer = (page: Page) => page.evaluate(() => (window as unknown as { readAnswer(): unknown }).readAnswer());

  it('places, moves and removes a point by keyboard alone, announcing each change', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await open(context);
    await page.keyboard.press('Tab');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Add point');
    await page.keyboard.press('Enter');
    // At the image's centre (400 × 300): on the ventricle's right edge, so in it.
    await expect.poll(() => live(page).textContent()).toBe('Point 1 at 200, 150 — in Left ventricle. Placed.');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Point 1 at 200, 150 — in Left ventricle');
    expect(await answer(page)).toEqual([{ x: 200, y: 150 }]);

    await page.keyboard.press('ArrowRight');
    await expect.poll(() => live(page).textContent()).toBe('Point 1 at 210, 150 — near Right atrium');
    await page.keyboard.press('Shift+ArrowLeft');
    await expect.poll(() => live(page).textContent()).toBe('Point 1 at 209, 150 — near Right atrium');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => live(page).textContent()).toBe('Point 1 at 209, 180 — in Valve');
    expect(await answer(page)).toEqual([{ x: 209, y: 180 }]);
    // The moved point keeps the focus, and sits where its coordinates say on the drawn image.
    expect(await page.evaluate(() => document.activeElement?.classList.contains('sp-marker'))).toBe(true);
    const [marker, image] = await Promise.all([page.locator('.sp-marker').boundingBox(), page.locator('.sp-image').boundingBox()]);
    expect(Math.abs(marker!.x + marker!.width / 2 - (image!.x + (209 / 400) * image!.width))).toBeLessThan(1.5);
    expect(Math.abs(marker!.y + marker!.height / 2 - (image!.y + (180 / 300) * image!.height))).toBeLessThan(1.5);
    expect(await page.locator('.sp-list li').allTextContents()).toEqual(['Point 1 at 209, 180 — in Valve Remove point 1']);

    await page.keyboard.press('Delete');
    await expect.poll(() => live(page).textContent()).toBe('Point 1 removed. 0 of 3 placed.');
    expect(await answer(page)).toBeNull();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Add point');
    expect(await page.evaluate(() => (window as unknown as { changes: number }).changes)).toBe(7);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await closeContext(context);
  });

  it('never places more than maxPoints, and a Remove button takes a point away', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await open(context);
    const add = page.getByRole('button', { name: 'Add point' });
    for (let i = 0; i < 3; i++) await add.click();
    expect(await add.getAttribute('aria-disabled')).toBe('true');
    // aria-disabled keeps it in the tab order (the reason is announced); Playwright's click would wait for it to be enabled.
    await add.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => live(page).textContent()).toBe('All 3 points are placed: remove one to place another.');
    expect(await answer(page)).toHaveLength(3);
    expect(await page.locator('.sp-count').textContent()).toBe('3 of 3 points placed');
    await page.getByRole('button', { name: 'Remove point 2' }).click();
    await expect.poll(() => live(page).textContent()).toBe('Point 2 removed. 2 of 3 placed.');
    expect(await answer(page)).toHaveLength(2);
    expect(await add.getAttribute('aria-disabled')).toBeNull();
    await closeContext(context);
  });

  it('on a phone a tap places a point where it lands; a saved answer is drawn on load; axe clean and no sideways scroll', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.phone, hasTouch: true, isMobile: true });
    // The second point on the image's bottom-right corner: its button reaches past the image, not past the page.
    const page = await open(context, [{ x: 250, y: 80 }, { x: 400, y: 300 }]);
    expect(await page.locator('.sp-marker').first().getAttribute('aria-label')).toBe('Point 1 at 250, 80 — in Aorta');
    const image = (await page.locator('.sp-image').boundingBox())!;
    expect(image.width).toBeLessThan(360);
    // A tap on the ventricle's centre (150, 150 in the image's pixels), wherever the image is drawn at this width.
    await page.tap('.sp-image', { position: { x: (150 / 400) * image.width, y: (150 / 300) * image.height } });
    await expect.poll(() => live(page).textContent()).toMatch(/^Point 3 at 1(4[89]|5[012]), 1(4[89]|5[012]) — in Left ventricle\. Placed\.$/);
    expect(await answer(page)).toHaveLength(3);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(VIEWPORTS.phone.width);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await closeContext(context);
  });

  it('restores a value written back, and clears with null', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await open(context);
    await page.evaluate(() => (window as unknown as { writeAnswer(v: unknown): void }).writeAnswer([{ x: 10, y: 10 }, { x: 230, y: 235 }]));
    expect(await page.locator('.sp-list li .sp-where').allTextContents()).toEqual(['Point 1 at 10, 10 — near Left ventricle', 'Point 2 at 230, 235 — in Valve']);
    expect(await answer(page)).toEqual([{ x: 10, y: 10 }, { x: 230, y: 235 }]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(VIEWPORTS.desktop.width);
    await page.evaluate(() => (window as unknown as { writeAnswer(v: unknown): void }).writeAnswer(null));
    expect(await answer(page)).toBeNull();
    expect(await page.locator('.sp-marker').count()).toBe(0);
    await closeContext(context);
  });
});
