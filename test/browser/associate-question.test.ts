import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { assign, createPublishedTest, readAssignment } from '../helpers/student.js';
import { SHOTS, VIEWPORTS, freePort, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations, closeContext, tabTo } from './browser-env.js';

/**
 * An associate question in Chromium: pairs made and removed with the
 * keyboard alone (two selects, Add pair, Remove pair: A and B), each change
 * said in the status line, the focus kept in the question; the answer is
 * autosaved and comes back on a reload; no sideways scroll at 1280 and
 * 360 px, axe clean; a phone's taps work too; the submission is marked per
 * keyed pair.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;
const EXAMPLE = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/examples/tests/associate.json'), 'utf8')) as TestInput;
const Q = 'fieldset[data-question-id="synonyms"]';

run('an associate question in a real browser', () => {
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

  /** Chooses an item in a closed select with the arrow keys, as a keyboard user does. */
  async function choose(page: Page, selector: string, value: string): Promise<void> {
    await tabTo(page, selector);
    const current = () => page.evaluate(() => (document.activeElement as HTMLSelectElement).value);
    for (let i = 0; i < 10 && (await current()) !== value; i++) await page.keyboard.press('ArrowDown');
    for (let i = 0; i < 10 && (await current()) !== value; i++) await page.keyboard.press('ArrowUp');
    expect(await current()).toBe(value);
  }
  async function pair(page: Page, a: string, b: string): Promise<void> {
    await choose(page, '#q1-first', a);
    await choose(page, '#q1-second', b);
    await tabTo(page, `${Q} .assoc-add`);
    await page.keyboard.press('Enter');
  }
  const status = (page: Page) => page.locator(`${Q} .assoc-status`).textContent();
  const shownPairs = (page: Page) => page.locator(`${Q} .assoc-pair`).evaluateAll((lis) => lis.map((li) => `${(li as HTMLElement).dataset.a}+${(li as HTMLElement).dataset.b}`));
  const storedAnswer = async (assignmentId: string): Promise<unknown> =>
    ((await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}`)).json().items as Array<{ questionId: string; answer: unknown }>).find((i) => i.questionId === 'synonyms')?.answer ?? null;
  async function checkLayout(page: Page, size: keyof typeof VIEWPORTS): Promise<void> {
    expect(await seriousAxeViolations(page), size).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), size).toBeLessThanOrEqual(VIEWPORTS[size].width);
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.locator(Q).screenshot({ path: path.join(SHOTS, `question-associate-${size}.png`) });
  }

  it('makes and removes pairs by keyboard, keeps them over a reload, works by touch on a phone and marks each keyed pair', async () => {
    const a = await assign(h, tenant, { testId, externalUserId: 'associate-kbd' });
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(a.startUrl);
    await tabTo(page, '#begin-button');
    await page.keyboard.press('Enter');
    await page.getByRole('timer').waitFor();

    // Every control is named.
    const question = page.getByRole('group', { name: /^Question 1/ });
    await expect.poll(() => question.getByRole('combobox', { name: 'First item' }).count()).toBe(1);
    expect(await question.getByRole('combobox', { name: 'Second item' }).count()).toBe(1);
    expect(await question.getByRole('button', { name: 'Add pair' }).count()).toBe(1);

    // Why a pair cannot be made is said, and nothing is made.
    await pair(page, 'big', 'big');
    expect(await status(page)).toBe('Choose two different items: an item cannot be paired with itself.');
    expect(await shownPairs(page)).toEqual([]);

    await pair(page, 'large', 'big');
    // Shown as stored: the items in their list's order, the pairs sorted so.
    expect(await status(page)).toBe('Pair made: big and large.');
    await pair(page, 'small', 'fast');
    await pair(page, 'big', 'large');
    expect(await status(page)).toBe('big and large are already a pair.');
    await pair(page, 'fast', 'quick');
    expect(await page.locator(`${Q} .assoc-count`).textContent()).toBe('3 of at most 3');
    await pair(page, 'small', 'little');
    expect(await status(page)).toBe('You have made the most pairs allowed (3). Remove a pair to make another.');
    await expect.poll(() => storedAnswer(a.assignmentId), { timeout: 15_000 }).toEqual([['big', 'large'], ['small', 'fast'], ['quick', 'fast']]);

    // Remove the wrong pair: the focus moves to the next pair's Remove button.
    await tabTo(page, `${Q} button[aria-label="Remove pair: small and fast"]`);
    await page.keyboard.press('Enter');
    expect(await status(page)).toBe('Pair removed: small and fast.');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Remove pair: quick and fast');
    await pair(page, 'little', 'small');
    const answer = [['big', 'large'], ['small', 'little'], ['quick', 'fast']];
    expect(await shownPairs(page)).toEqual(['big+large', 'small+little', 'quick+fast']);
    await expect.poll(() => storedAnswer(a.assignmentId), { timeout: 15_000 }).toEqual(answer);
    expect(await page.locator('#answered-count').textContent()).toBe('1 of 1 answered');
    await checkLayout(page, 'desktop');

    await page.reload();
    expect(await shownPairs(page)).toEqual(['big+large', 'small+little', 'quick+fast']);

    // A phone: taps remove a pair and make it again; the layout holds at 360 px.
    const phone = await browser.newContext({ viewport: VIEWPORTS.phone, hasTouch: true, isMobile: true });
    const small = await phone.newPage();
    small.on('pageerror', (e) => problems.push(e.message));
    await small.goto(a.startUrl);
    await small.getByRole('timer').waitFor();
    await small.tap(`${Q} button[aria-label="Remove pair: quick and fast"]`);
    expect(await shownPairs(small)).toEqual(['big+large', 'small+little']);
    await expect.poll(() => storedAnswer(a.assignmentId), { timeout: 15_000 }).toEqual([['big', 'large'], ['small', 'little']]);
    await small.selectOption('#q1-first', 'quick');
    await small.selectOption('#q1-second', 'fast');
    await small.tap(`${Q} .assoc-add`);
    expect(await shownPairs(small)).toEqual(['big+large', 'small+little', 'quick+fast']);
    await expect.poll(() => storedAnswer(a.assignmentId), { timeout: 15_000 }).toEqual(answer);
    await checkLayout(small, 'phone');
    await closeContext(phone);

    await page.reload();
    await tabTo(page, '#open-submit');
    await page.keyboard.press('Enter');
    await tabTo(page, '#confirm-submit');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await readAssignment(h, tenant, a.assignmentId)).result?.score ?? null, { timeout: 15_000 }).toMatchObject({ points: 3, maxPoints: 3 });
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 240_000);
});
