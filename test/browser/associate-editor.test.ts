import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { createHarness, type Harness } from '../helpers/harness.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { freePort, hasBrowser, launchBrowser, requireBrowser, VIEWPORTS, closeContext } from './browser-env.js';
import { signInPortal } from './portal-check.js';

/**
 * The form editor's associate fields in Chromium, by keyboard: an author
 * picks the Associate type, writes the items, keys two pairs with the pair
 * selects and sets Max associations; the draft saves with no problem and
 * holds exactly that question.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

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
/** Moves a closed select down with the arrow key until it holds `value`, as a keyboard user does. */
async function arrowTo(l: Locator, value: string) {
  await l.focus();
  for (let i = 0; i < 30 && (await l.inputValue()) !== value; i++) await l.page().keyboard.press('ArrowDown');
  expect(await l.inputValue()).toBe(value);
}
const question = (page: Page, n: number) => page.getByRole('group', { name: new RegExp(`^Question ${n} \\(`) });

run('the associate question in the form editor', () => {
  let h: Harness;
  let browser: Browser;
  let origin: string;
  let author: PortalUser;
  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    author = await signedIn(h, 'author', h.a.institutionId, 'Ada Author');
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('authors items, keyed pairs and a limit by keyboard and saves them', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    await signInPortal(h.pool, h.clock.now(), context, author);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${origin}/portal/tests`);
    await press(page.getByRole('button', { name: 'New test' }));
    await page.getByRole('heading', { level: 1, name: 'Edit test' }).waitFor();
    const testId = new URL(page.url()).pathname.split('/')[3]!;
    await typeInto(page.getByLabel('Title', { exact: true }), 'Opposites');
    await typeInto(page.getByLabel('Section 1 title'), 'Words');

    await press(page.getByRole('button', { name: 'Add question to section 1' }));
    await arrowTo(question(page, 1).getByLabel('Question type'), 'associate');
    const q = question(page, 1);
    await typeInto(q.getByLabel('Prompt'), 'Pair the opposites.');
    await typeInto(q.getByLabel('Item 1', { exact: true }), 'hot');
    await typeInto(q.getByLabel('Item 2', { exact: true }), 'cold');
    await press(q.getByRole('button', { name: 'Add item' }));
    await typeInto(question(page, 1).getByLabel('Item 3', { exact: true }), 'up');
    await press(question(page, 1).getByRole('button', { name: 'Add item' }));
    await typeInto(question(page, 1).getByLabel('Item 4', { exact: true }), 'down');
    // Pair 1 starts as items 1 and 2; pair 2 is chosen with the arrow keys.
    await press(question(page, 1).getByRole('button', { name: 'Add pair' }));
    await arrowTo(question(page, 1).getByLabel('Pair 2 first item'), 'i3');
    await arrowTo(question(page, 1).getByLabel('Pair 2 second item'), 'i4');
    await typeInto(question(page, 1).getByLabel('Max associations'), '2');

    await page.getByRole('button', { name: 'Save draft' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#editor-status').innerText(), { timeout: 10_000 }).toMatch(/^Saved at/);
    expect((await page.locator('.field-error').allInnerTexts()).filter((t) => t.trim() !== '')).toEqual([]);
    const draft = (await h.pool.query('SELECT content FROM test_drafts WHERE test_id = $1', [testId])).rows[0].content;
    const saved = (draft.sections ?? [{ questions: draft.questions }])[0].questions[0];
    expect(saved).toMatchObject({
      type: 'associate',
      prompt: 'Pair the opposites.',
      items: [{ id: 'i1', text: 'hot' }, { id: 'i2', text: 'cold' }, { id: 'i3', text: 'up' }, { id: 'i4', text: 'down' }],
      pairs: [{ a: 'i1', b: 'i2' }, { a: 'i3', b: 'i4' }],
      maxAssociations: 2,
    });
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 180_000);
});
