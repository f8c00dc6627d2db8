import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { HEART_SVG, uploadImage } from '../helpers/image-questions.js';
import { markdownTest, uploadSvg } from '../helpers/markdown-content.js';
import { assign, createPublishedTest } from '../helpers/student.js';
import { SHOTS, VIEWPORTS, closeContext, freePort, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations } from './browser-env.js';
import { storedAnswers } from './image-question-kit.js';

/**
 * The student pages right to left in Chromium: an assignment whose candidate
 * chose Arabic gets `<html dir="rtl">`, and the intro page, the test page
 * of a sectioned Markdown test, its submit dialog and the result page mirror
 * at 1280 and 360 px (the title ends at the
 * right of the column, the navigator sits on the right), with no sideways
 * scroll and no serious axe violation. What must stay left to right does:
 * formulas, code, the timer's digits, a typed number, the slider's values;
 * the slider runs as the native control does (its minimum on the right);
 * image questions are never mirrored (a click lands where it was made).
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

/** The Markdown test's section (formulas, a table, code, an image) and a second one of numbers and pictures. */
function rtlTest(triangleId: string, heartId: string): TestInput {
  const input = markdownTest(triangleId) as TestInput & { sections: Array<Record<string, unknown>> };
  const image = `asset:${heartId}`;
  input.sections.push({
    id: 'measures',
    title: 'Measures',
    instructions: 'Numbers are read left to right: `-2.5`, $x^2$.',
    questions: [
      { id: 'fall', type: 'numeric', prompt: 'How far does a stone fall in 3.0 s, in metres?', points: 2, answer: 44.1, tolerance: 0.1 },
      { id: 'boil', type: 'slider', prompt: 'At what temperature, in °C, does water boil at sea level?', points: 1, min: -20, max: 150, step: 5, correct: 100, tolerance: 5 },
      {
        id: 'ventricles', type: 'hotspot', prompt: 'Choose the lower right chamber.', points: 1, image, imageWidth: 400, imageHeight: 360,
        imageAlt: 'An unlabelled diagram of the heart: four chambers and an arch',
        regions: [
          { id: 'rv', label: 'Lower left chamber', shape: 'poly', coords: [60, 170, 190, 170, 200, 330, 90, 300] },
          { id: 'lv', label: 'Lower right chamber', shape: 'poly', coords: [210, 170, 340, 170, 320, 300, 210, 340] },
        ],
        correctRegionIds: ['lv'],
        maxChoices: 1,
      },
      {
        id: 'spot', type: 'select_point', prompt: 'Place a point on the upper left chamber.', points: 1, image,
        imageAlt: 'The same diagram of the heart',
        maxPoints: 1,
        areas: [{ id: 'ra', label: 'Upper left chamber', shape: 'rect', coords: [60, 60, 180, 150], points: 1 }],
      },
    ],
  });
  return input;
}

/** Where a text's glyphs are, not its box: a heading's box spans the column whichever way its text runs. */
const textBox = (page: Page, selector: string) =>
  page.locator(selector).first().evaluate((el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const r = range.getBoundingClientRect();
    const main = document.querySelector('main')!.getBoundingClientRect();
    const pad = parseFloat(getComputedStyle(document.querySelector('main')!).paddingRight);
    return { left: r.left, right: r.right, columnRight: main.right - pad };
  });

const direction = (page: Page, selector: string) => page.locator(selector).first().evaluate((el) => getComputedStyle(el).direction);

/** What every right-to-left page must be: rtl, mirrored, no sideways scroll, axe clean. */
async function checkPage(page: Page, size: keyof typeof VIEWPORTS, name: string): Promise<void> {
  expect(await page.evaluate(() => document.dir)).toBe('rtl');
  expect(await page.evaluate(() => document.documentElement.lang)).toBe('ar');
  const title = await textBox(page, 'main h1');
  // The title's text ends at the right of the column (an LTR page would start it at the left).
  expect(Math.abs(title.right - title.columnRight), `${name} ${size}: ${JSON.stringify(title)}`).toBeLessThanOrEqual(2);
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), `${name} ${size} overflows`).toBe(true);
  expect(await seriousAxeViolations(page), `${name} ${size}`).toEqual([]);
}

run('the student pages right to left (Arabic) in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  let tenant: Tenant;
  let testId: string;

  beforeAll(async () => {
    const port = await freePort();
    h = await createHarness({ config: { publicBaseUrl: `http://127.0.0.1:${port}`, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    tenant = await h.createTenant('Northfield University', ['localhost']);
    const input = rtlTest(await uploadSvg(h), await uploadImage(h, HEART_SVG));
    testId = await createPublishedTest(h, tenant, input);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  for (const size of ['desktop', 'phone'] as const) {
    it(`mirrors the intro and test pages at ${VIEWPORTS[size].width} px and keeps formulas, numbers and pictures left to right`, async () => {
      const a = await assign(h, tenant, { testId, externalUserId: `rtl-${size}` });
      const set = await h.pool.query(`UPDATE assignments SET candidate_locale = 'ar' WHERE id = $1`, [a.assignmentId]);
      expect(set.rowCount).toBe(1);
      const context = await browser.newContext({ viewport: VIEWPORTS[size] });
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));

      await page.goto(a.startUrl);
      await checkPage(page, size, 'intro');
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, `student-rtl-intro-${size}.png`), fullPage: true });
      await page.locator('#begin-button').click();
      await page.getByRole('timer').waitFor();
      await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('.region-picture img, .sp-image')].every((i) => i.naturalWidth > 0));

      // Left to right inside the right-to-left text: formulas (an attribute and the stylesheet), code, the timer, a typed number.
      expect(await page.locator('math').count()).toBeGreaterThanOrEqual(10);
      expect(await page.locator('math:not([dir="ltr"])').count()).toBe(0);
      expect(await direction(page, '.prompt math')).toBe('ltr');
      expect(await direction(page, '.content code')).toBe('ltr');
      expect(await direction(page, '#timer-value')).toBe('ltr');
      expect(await page.locator('#timer-value').textContent()).toMatch(/^\d{1,2}:\d\d$/);
      const number = page.locator('fieldset[data-question-id="fall"] input');
      expect(await number.evaluate((i) => [getComputedStyle(i).direction, getComputedStyle(i).textAlign])).toEqual(['ltr', 'right']);
      await number.fill('-44.1');
      const typed = await number.evaluate((i: HTMLInputElement) => i.value);
      expect(typed).toBe('-44.1');

      // The page mirrors: on a wide screen the navigator is the right-hand column, the questions to its left.
      if (size === 'desktop') {
        const nav = (await page.locator('.navigator').boundingBox())!;
        const question = (await page.locator('fieldset.question').first().boundingBox())!;
        expect(nav.x).toBeGreaterThan(question.x + question.width - 1);
      }
      await checkPage(page, size, 'test');

      // The slider runs as a native right-to-left control: its minimum (and the label "-20") on the right.
      const slider = page.locator('fieldset[data-question-id="boil"]');
      const ends = await slider.locator('.slider-end').evaluateAll((els) => els.map((e) => ({ text: e.textContent, x: e.getBoundingClientRect().x })));
      expect(ends[0]!.text).toBe('-20');
      expect(ends[0]!.x).toBeGreaterThan(ends[1]!.x);
      expect(await direction(page, 'fieldset[data-question-id="boil"] .slider-end')).toBe('ltr');
      const track = (await slider.locator('.slider-input').boundingBox())!;
      await slider.locator('.slider-input').click({ position: { x: track.width - 2, y: track.height / 2 } });
      await expect.poll(() => slider.locator('.slider-value').textContent()).toBe('-20');
      // The arrow keys move the thumb the way they point: left, towards the maximum.
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => slider.locator('.slider-value').textContent()).toBe('-15');

      // Pictures are not mirrored: a click on the lower right chamber chooses it, a point lands where it was placed.
      await page.locator('fieldset[data-question-id="ventricles"] .region-picture img').scrollIntoViewIfNeeded();
      const hotspot = (await page.locator('fieldset[data-question-id="ventricles"] .region-picture img').boundingBox())!;
      expect(await direction(page, 'fieldset[data-question-id="ventricles"] .region-picture')).toBe('ltr');
      await page.mouse.click(hotspot.x + (265 / 400) * hotspot.width, hotspot.y + (240 / 360) * hotspot.height);
      await expect.poll(() => page.locator('.region-toggle[data-region-id="lv"]').getAttribute('aria-pressed')).toBe('true');
      await page.locator('.sp-image').scrollIntoViewIfNeeded();
      const image = (await page.locator('.sp-image').boundingBox())!;
      const click = { x: image.x + (100 / 400) * image.width, y: image.y + (90 / 360) * image.height };
      await page.mouse.click(click.x, click.y);
      const marker = (await page.locator('.sp-marker').first().boundingBox())!;
      expect(Math.abs(marker.x + marker.width / 2 - click.x)).toBeLessThanOrEqual(2);
      expect(Math.abs(marker.y + marker.height / 2 - click.y)).toBeLessThanOrEqual(2);
      await expect.poll(() => storedAnswers(h, a.assignmentId), { timeout: 15_000 }).toMatchObject({ ventricles: ['lv'], boil: -15, fall: '-44.1', spot: [{ x: expect.any(Number), y: expect.any(Number) }] });
      // The image's own pixels (a mirrored one would put the point near x = 300); a pixel either way is the click's rounding.
      const [point] = (await storedAnswers(h, a.assignmentId)).spot as Array<{ x: number; y: number }>;
      expect(Math.abs(point!.x - 100) <= 2 && Math.abs(point!.y - 90) <= 2, JSON.stringify(point)).toBe(true);

      // The sticky status bar is moved out of the way of the section pictures (it would cover one at 360 px).
      await page.locator('.status-bar').evaluate((bar: HTMLElement) => (bar.style.position = 'static'));
      await page.locator('section.test-section').first().screenshot({ path: path.join(SHOTS, `student-rtl-content-${size}.png`) });
      await page.locator('section.test-section').nth(1).screenshot({ path: path.join(SHOTS, `student-rtl-measures-${size}.png`) });

      // The submit dialog (its buttons in mirrored order on a wide screen, Keep working on the right) and the result page.
      await page.locator('#open-submit').click();
      await page.locator('#submit-dialog[open]').waitFor();
      if (size === 'desktop') {
        const keep = (await page.locator('#cancel-submit').boundingBox())!;
        const submit = (await page.locator('#confirm-submit').boundingBox())!;
        expect(keep.x).toBeGreaterThan(submit.x);
      }
      expect(await seriousAxeViolations(page), `dialog ${size}`).toEqual([]);
      await page.locator('#confirm-submit').click();
      // The result page has no dialog: once it is gone, the page is the next one.
      await page.locator('#submit-dialog').waitFor({ state: 'detached' });
      await page.waitForLoadState();
      await checkPage(page, size, 'result');
      await page.screenshot({ path: path.join(SHOTS, `student-rtl-result-${size}.png`), fullPage: true });
      expect(problems).toEqual([]);
      await closeContext(context);
    }, 120_000);
  }
});
