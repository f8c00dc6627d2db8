import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { HEART_SVG, uploadImage, WALK_SVG } from '../helpers/image-questions.js';
import { assign, createPublishedTest } from '../helpers/student.js';
import { VIEWPORTS, closeContext, freePort, hasBrowser, launchBrowser, requireBrowser } from './browser-env.js';
import { latinWords } from '../helpers/catalogues.js';

/**
 * The pseudo-locale walk: a candidate's every page shown in `en-XA`, where
 * each catalogue message comes out accented, 40 % longer and bracketed. Any
 * run of plain ASCII letters left on a page (text, accessible names, titles,
 * placeholders) that is not the author's content, the institution's name or
 * a date Intl wrote is a string that did not come from the catalogue; any
 * box whose longer text overflows a clipped edge is a layout that a longer
 * language would break. Both fail the test, with the offending text.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;
const example = (name: string) => JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, `../../docs/examples/tests/${name}.json`), 'utf8')) as TestInput;
const only = (name: string) => example(name).questions![0]! as Record<string, unknown>;
const INSTITUTION = 'Northfield University';
/** Unit symbols Intl writes with a size (`20 MB`): symbols, not words, the same in every language that writes them in Latin letters. */
const UNIT_SYMBOLS = ['kB', 'KB', 'MB', 'GB'];

interface Finding {
  hardCoded: string[];
  clipped: string[];
  overflow: number;
}

/** Runs in the page: the visible strings with plain English words, and the clipped boxes. */
function inspect(allowedWords: string[]): Finding {
  const allowed = new Set(allowedWords);
  const hardCoded: string[] = [];
  const clipped: string[] = [];
  const shown = (el: Element) => {
    const s = getComputedStyle(el);
    return s.display !== 'none' && s.visibility !== 'hidden' && el.getClientRects().length > 0 && !el.closest('[hidden]');
  };
  // Dates are Intl's (named months and "UTC" in the locale's own way); a language's own name in the Language menu is in that language.
  const exempt = (el: Element) => !!el.closest('time, math, code, pre, script, style') || !!el.closest('[lang]:not(html)');
  const english = (text: string) => (text.match(/[A-Za-z]{2,}/g) ?? []).filter((w) => !allowed.has(w));
  const where = (el: Element) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.classList.length ? `.${[...el.classList].join('.')}` : ''}`;

  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const text = node.textContent ?? '';
    if (!el || !text.trim() || exempt(el) || !shown(el)) continue;
    if (english(text).length > 0) hardCoded.push(`${where(el)}: "${text.trim().slice(0, 100)}"`);
  }
  for (const el of document.querySelectorAll('body *')) {
    if (exempt(el) || !shown(el)) continue;
    for (const attr of ['aria-label', 'title', 'placeholder', 'alt', 'aria-valuetext']) {
      const value = el.getAttribute(attr);
      if (value && english(value).length > 0) hardCoded.push(`${where(el)}[${attr}]: "${value.slice(0, 100)}"`);
    }
    const s = getComputedStyle(el);
    const hides = (o: string) => o === 'hidden' || o === 'clip';
    const text = (el.textContent ?? '').trim();
    // Text hidden for screen readers only (a 1 px clipped box, whatever its class) is heard whole, never clipped.
    if (!text || el.classList.contains('sr-only') || el.clientWidth <= 1 || el.clientHeight <= 1) continue;
    if ((hides(s.overflowX) || s.textOverflow === 'ellipsis') && el.scrollWidth > el.clientWidth + 1) clipped.push(`${where(el)} (${el.scrollWidth} > ${el.clientWidth} px wide): "${text.slice(0, 60)}"`);
    else if (hides(s.overflowY) && el.scrollHeight > el.clientHeight + 1) clipped.push(`${where(el)} (${el.scrollHeight} > ${el.clientHeight} px high): "${text.slice(0, 60)}"`);
  }
  if (english(document.title).length > 0) hardCoded.push(`title: "${document.title}"`);
  return { hardCoded, clipped, overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth };
}

run('every student page in the pseudo-locale', () => {
  let h: Harness;
  let browser: Browser;
  let tenant: Tenant;
  let origin: string;
  let allTypesId: string;
  let proctoredId: string;
  let allowed: string[];

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin, allowInsecureUrls: true, pseudoLocale: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    tenant = await h.createTenant(INSTITUTION, ['localhost']);
    const [heart, walk] = [await uploadImage(h, HEART_SVG), await uploadImage(h, WALK_SVG)];
    const input: TestInput = {
      title: 'Mixed Interactions',
      description: 'Every kind of question, in sections.',
      durationMinutes: 45,
      proctoring: 'none',
      marking: 'hybrid',
      resultVisibility: 'after_review',
      sections: [
        {
          id: 'choices',
          title: 'Choosing',
          instructions: 'Answer every question.',
          questions: ['single_choice', 'multiple_choice', 'matching', 'ordering', 'fill_blanks', 'short_text', 'numeric'].map(only) as never,
        },
        {
          id: 'pictures',
          title: 'Pictures',
          questions: [{ ...only('hotspot'), image: `asset:${heart}` }, { ...only('select_point'), image: `asset:${heart}` }, { ...only('graphic_order'), image: `asset:${walk}` }] as never,
        },
        { id: 'words', title: 'Words', questions: ['hot_text', 'slider', 'associate', 'essay', 'file_upload'].map(only) as never },
      ],
    };
    const proctored: TestInput = { ...example('single_choice'), title: 'Supervised Check', proctoring: 'record' } as TestInput;
    allTypesId = await createPublishedTest(h, tenant, input);
    proctoredId = await createPublishedTest(h, tenant, proctored);
    // The author's words, the institution's name and the product's, which no language translates.
    allowed = [...latinWords([input, proctored, INSTITUTION, 'Assay', UNIT_SYMBOLS])];
    browser = await launchBrowser();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  /** An assignment shown in the pseudo-locale (the candidate's own choice, which the Language menu does not offer). */
  async function pseudoAssignment(testId: string, overrides: Record<string, unknown> = {}) {
    const a = await assign(h, tenant, { testId, callbackUrl: 'https://localhost/return', ...overrides });
    await h.pool.query(`UPDATE assignments SET candidate_locale = 'en-XA' WHERE id = $1`, [a.assignmentId]);
    return a;
  }

  async function check(page: Page, label: string): Promise<void> {
    const found = await page.evaluate(inspect, allowed);
    expect(await page.evaluate(() => document.documentElement.lang), label).toBe('en-XA');
    expect(found.hardCoded, `${label}: strings not from the catalogue`).toEqual([]);
    expect(found.clipped, `${label}: text clipped`).toEqual([]);
    expect(found.overflow, `${label}: sideways scroll`).toBeLessThanOrEqual(0);
  }

  for (const size of ['desktop', 'phone'] as const) {
    it(`leaves no hard-coded or clipped string on the journey's pages (${size})`, async () => {
      const context = await browser.newContext({ viewport: VIEWPORTS[size], extraHTTPHeaders: { 'accept-language': 'en-XA' } });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      try {
        await page.goto(`${origin}/s/not-a-real-link`);
        await check(page, 'invalid link');

        const a = await pseudoAssignment(allTypesId, { dueAt: new Date(Date.now() + 86_400_000).toISOString() });
        await page.goto(a.startUrl);
        await check(page, 'intro');
        await page.locator('#begin-button').click();
        await page.waitForSelector('#open-submit');
        await check(page, 'test');

        // Offline: the save state and the screen reader's notice say so.
        await context.setOffline(true);
        await page.locator('fieldset[data-question-id] input[type=text]').first().fill('42');
        await expect.poll(() => page.locator('#save-status').getAttribute('data-state'), { timeout: 15_000 }).toBe('offline');
        await check(page, 'test, offline');
        await context.setOffline(false);

        await page.locator('#open-submit').click();
        await check(page, 'submit confirmation');
        await page.locator('#confirm-submit').click();
        await page.waitForURL(/\/a\/asg_/);
        await page.waitForSelector('.button.primary');
        await check(page, 'completion');

        const supervised = await pseudoAssignment(proctoredId);
        await page.goto(supervised.startUrl);
        await check(page, 'supervised intro');

        const withdrawn = await pseudoAssignment(allTypesId);
        expect((await h.partner(tenant, 'POST', `/api/partner/v1/assignments/${withdrawn.assignmentId}/cancel`)).statusCode).toBe(200);
        await page.goto(withdrawn.startUrl);
        await check(page, 'withdrawn');
        expect(problems).toEqual([]);
      } finally {
        await closeContext(context);
      }
    }, 240_000);
  }
});
