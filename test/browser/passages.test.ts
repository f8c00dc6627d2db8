import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { signedIn } from '../helpers/portal.js';
import { assign, createPublishedTest } from '../helpers/student.js';
import { SHOTS, VIEWPORTS, freePort, hasBrowser, launchBrowser, seriousAxeViolations, closeContext } from './browser-env.js';
import { signInPortal } from './portal-check.js';

/**
 * Passages in Chromium: on the student page beside their questions at
 * 1280 px (scrolling on their own) and above them at 360 px, never wider
 * than the screen (320 px too), named regions, nothing serious for axe;
 * and in the form editor, added, chosen with the "Passage" select and kept
 * across a reload, all by keyboard, a passage in use not removed.
 */
const LONG = Array.from({ length: 14 }, (_, i) => `Paragraph ${i + 1}. The river rose through the night, and by morning the water had reached the steps of the mill, where the miller kept his records of every flood since the bridge was built.`).join('\n\n');

const READING: TestInput = {
  title: 'Reading: the flood',
  description: '',
  durationMinutes: 30,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  passages: [{ id: 'flood', title: 'The flood of 1910', text: LONG }],
  questions: [
    { id: 'q1', type: 'single_choice', prompt: 'Where did the water reach by morning?', points: 1, options: [{ id: 'a', text: 'The steps of the mill' }, { id: 'b', text: 'The church tower' }], correctOptionId: 'a', passageId: 'flood' },
    { id: 'q2', type: 'short_text', prompt: 'Who kept the records of every flood?', points: 1, acceptedAnswers: ['the miller', 'miller'], passageId: 'flood' },
    { id: 'q3', type: 'numeric', prompt: 'How much is 3 + 4?', points: 1, answer: 7 },
  ],
};

async function press(l: Locator) {
  await l.focus();
  await l.page().keyboard.press('Enter');
}
async function typeInto(l: Locator, text: string) {
  await l.focus();
  await l.page().keyboard.press('Control+A');
  await l.page().keyboard.press('Delete');
  await l.page().keyboard.type(text);
}

describe.skipIf(!hasBrowser)('passages in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  let tenant: Tenant;
  let origin: string;
  let testId: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    tenant = await h.createTenant('Riverside School', ['localhost']);
    testId = await createPublishedTest(h, tenant, READING);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  async function testPage(viewport: { width: number; height: number }, user: string): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    const a = await assign(h, tenant, { testId, externalUserId: user });
    await page.goto(a.startUrl);
    await page.getByRole('button', { name: 'Begin test' }).click();
    await page.getByRole('timer').waitFor();
    return { page, problems };
  }

  const box = async (l: Locator) => (await l.boundingBox())!;
  const wide = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

  it('at 1280 px the passage sits beside its questions, scrolls on its own, and is shown once as a named region', async () => {
    const { page, problems } = await testPage(VIEWPORTS.desktop, 'wide-1');
    const region = page.getByRole('region', { name: 'The flood of 1910' });
    expect(await region.count()).toBe(1);
    const passage = await box(region);
    const q1 = await box(page.locator('#question-1'));
    const q2 = await box(page.locator('#question-2'));
    expect(passage.x + passage.width).toBeLessThanOrEqual(q1.x);
    expect(q2.x).toBe(q1.x);
    // A long passage scrolls inside its column (the page does not grow by its length), reachable by keyboard.
    const scroll = await region.evaluate((e) => ({ overflow: getComputedStyle(e).overflowY, inner: e.scrollHeight, outer: e.clientHeight, tab: e.tabIndex }));
    expect(scroll).toMatchObject({ overflow: 'auto', tab: 0 });
    expect(scroll.inner).toBeGreaterThan(scroll.outer);
    expect(passage.height).toBeLessThanOrEqual(VIEWPORTS.desktop.height);
    // The question without a passage takes the whole width after the group.
    const q3 = await box(page.locator('#question-3'));
    expect(q3.x).toBeLessThanOrEqual(passage.x);
    expect(await wide(page)).toBeLessThanOrEqual(VIEWPORTS.desktop.width);
    expect(await seriousAxeViolations(page)).toEqual([]);
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, 'student-passage-desktop.png') });
    expect(problems).toEqual([]);
    await closeContext(page.context());
  }, 120_000);

  it('at 360 px (and 320 px) the passage is above its questions and nothing scrolls sideways', async () => {
    const { page, problems } = await testPage(VIEWPORTS.phone, 'phone-1');
    const region = page.getByRole('region', { name: 'The flood of 1910' });
    const passage = await box(region);
    const q1 = await box(page.locator('#question-1'));
    expect(passage.y + passage.height).toBeLessThanOrEqual(q1.y);
    expect(Math.abs(passage.x - q1.x)).toBeLessThan(2);
    expect(await wide(page)).toBeLessThanOrEqual(360);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, 'student-passage-phone.png') });
    await page.setViewportSize({ width: 320, height: 700 });
    expect(await wide(page)).toBeLessThanOrEqual(320);
    expect(problems).toEqual([]);
    await closeContext(page.context());
  }, 120_000);

  it('the form editor adds a passage, chooses it for a question with the Passage select, refuses to remove it while used, and keeps both after a reload', async () => {
    const author = await signedIn(h, 'author', tenant.institutionId, 'Ada Author');
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    await signInPortal(h.pool, h.clock.now(), context, author);
    const page = await context.newPage();
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${origin}/portal/tests`);
    await press(page.getByRole('button', { name: 'New test' }));
    await page.getByRole('heading', { level: 1, name: 'Edit test' }).waitFor();

    await press(page.getByRole('button', { name: 'Add passage' }));
    await typeInto(page.getByLabel('Passage 1 title'), 'The flood');
    await typeInto(page.getByLabel('Passage 1 text'), 'The river rose for three days.');
    await press(page.getByRole('button', { name: /^Add question/ }).first());
    const q = page.getByRole('group', { name: /^Question 1 \(/ });
    await typeInto(q.getByLabel('Prompt'), 'How long did the river rise?');
    const choose = q.getByLabel('Passage', { exact: true });
    await choose.focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => choose.inputValue()).toBe('passage1');

    await press(page.getByRole('button', { name: 'Remove passage 1' }));
    await expect.poll(() => page.getByRole('alert').filter({ hasText: 'Not removed' }).innerText()).toBe('Not removed: question 1 uses this passage. Choose another passage (or none) for it first.');
    expect(await page.getByLabel('Passage 1 text').inputValue()).toBe('The river rose for three days.');

    await press(page.getByRole('button', { name: 'Save draft' }));
    await expect.poll(() => page.locator('#editor-status').innerText(), { timeout: 10_000 }).toMatch(/^Saved at/);
    await page.reload();
    await page.getByLabel('Passage 1 title').waitFor();
    expect(await page.getByLabel('Passage 1 title').inputValue()).toBe('The flood');
    expect(await page.getByRole('group', { name: /^Question 1 \(/ }).getByLabel('Passage', { exact: true }).inputValue()).toBe('passage1');
    // The Passages part and the first question down to its Passage select, with the sticky bar out of the way.
    await page.setViewportSize({ width: 1280, height: 2400 });
    await page.evaluate(() => window.scrollTo(0, 0));
    const top = (await box(page.locator('.editor-passages'))).y - 8;
    const select = await box(page.getByRole('group', { name: /^Question 1 \(/ }).getByLabel('Passage', { exact: true }));
    await page.screenshot({ path: path.join(SHOTS, 'portal-editor-passages-desktop.png'), clip: { x: 40, y: top, width: 720, height: Math.min(1200, select.y + select.height + 40 - top) } });
    await page.setViewportSize(VIEWPORTS.desktop);

    // Once no question uses it, the passage is removed.
    const again = page.getByRole('group', { name: /^Question 1 \(/ }).getByLabel('Passage', { exact: true });
    await again.focus();
    await page.keyboard.press('ArrowUp');
    await press(page.getByRole('button', { name: 'Remove passage 1' }));
    await expect.poll(() => page.getByLabel('Passage 1 title').count()).toBe(0);
    await closeContext(context);
  }, 180_000);
});
