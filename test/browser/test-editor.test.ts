import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { createHarness, type Harness } from '../helpers/harness.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { assign } from '../helpers/student.js';
import { freePort, hasBrowser, launchBrowser, requireBrowser, VIEWPORTS, closeContext } from './browser-env.js';
import { checkPortalPage, signInPortal } from './portal-check.js';

/**
 * The form editor in Chromium, driven by the keyboard: an author builds a
 * test of two sections with one question of each of the nine types, sees a
 * problem next to its field and fixes it, adds a formula and an image with
 * alt text, previews it at phone width and publishes version 1; the partner
 * lists and assigns it and the student sees the formula as MathML and the
 * image's alt text. A second author on the same draft is warned, a reload
 * loses nothing, and axe finds nothing serious at 1280 and 360 px.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

let h: Harness;
let browser: Browser;
let origin: string;
let author: PortalUser;
let second: PortalUser;
let testId = '';
const axeProblems: string[] = [];
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

async function press(l: Locator) {
  await l.focus();
  await l.page().keyboard.press('Enter');
}
async function typeInto(l: Locator, text: string) {
  await l.focus();
  await l.page().keyboard.press('Control+A');
  await l.page().keyboard.press('Delete');
  // One input event for the whole text, as a paste or an input method gives it: typing it key by key
  // adds nothing the editor reads (it listens to input) and took most of these tests' time.
  await l.page().keyboard.insertText(text);
}
async function space(l: Locator) {
  await l.focus();
  await l.page().keyboard.press('Space');
}
/** A closed select moves to the next option with the arrow key (and fires change), as a keyboard user does it. */
async function arrowDown(l: Locator, times: number) {
  await l.focus();
  for (let i = 0; i < times; i++) await l.page().keyboard.press('ArrowDown');
}
const question = (page: Page, n: number) => page.getByRole('group', { name: new RegExp(`^Question ${n} \\(`) });
const TYPE_STEPS = { single_choice: 0, multiple_choice: 1, short_text: 2, numeric: 3, essay: 4, matching: 5, ordering: 6, fill_blanks: 7, file_upload: 8 } as const;

async function addQuestion(page: Page, section: number, n: number, type: keyof typeof TYPE_STEPS): Promise<Locator> {
  await press(page.getByRole('button', { name: `Add question to section ${section}` }));
  await arrowDown(question(page, n).getByLabel('Question type'), TYPE_STEPS[type]);
  const q = question(page, n);
  await expect.poll(async () => q.getByLabel('Question type').inputValue()).toBe(type);
  return q;
}

async function saved(page: Page) {
  await page.getByRole('button', { name: 'Save draft' }).focus();
  await page.keyboard.press('Enter');
  await expect.poll(() => page.locator('#editor-status').innerText(), { timeout: 10_000 }).toMatch(/^Saved at/);
}

run('the test editor', () => {
  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    author = await signedIn(h, 'author', h.a.institutionId, 'Ada Author');
    second = await signedIn(h, 'author', h.a.institutionId, 'Ben Second');
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  async function authorPage(user: PortalUser, size: keyof typeof VIEWPORTS = 'desktop'): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: VIEWPORTS[size] });
    await signInPortal(h.pool, h.clock.now(), context, user);
    const page = await context.newPage();
    page.on('dialog', (d) => void d.accept());
    return { context, page };
  }

  it('builds a two-section test of every type by keyboard, shows a problem at its field, publishes version 1, and the student takes it', async () => {
    const { context, page } = await authorPage(author);
    await page.goto(`${origin}/portal/tests`);
    await press(page.getByRole('button', { name: 'New test' }));
    await page.getByRole('heading', { level: 1, name: 'Edit test' }).waitFor();
    testId = new URL(page.url()).pathname.split('/')[3]!;

    await typeInto(page.getByLabel('Title', { exact: true }), 'Fractions and forces');
    await arrowDown(page.getByLabel('Marking'), 2);
    await arrowDown(page.getByLabel('Result visibility'), 1);
    await typeInto(page.getByLabel('Section 1 title'), 'Calculations');
    await press(page.getByRole('button', { name: 'Add section' }));
    await typeInto(page.getByLabel('Section 2 title'), 'Written answers');

    // Section 1: single choice (with a formula and an image), multiple choice, short text, numeric, ordering.
    let q = await addQuestion(page, 1, 1, 'single_choice');
    await typeInto(q.getByLabel('Prompt'), 'What is $\\frac{1}{2} + \\frac{1}{4}$?');
    await press(q.getByRole('button', { name: 'Add image to question 1' }));
    await q.getByLabel('Image file').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });
    await typeInto(q.getByLabel('Alt text'), 'A pie cut into four equal slices');
    await press(q.getByRole('button', { name: 'Upload image' }));
    await expect.poll(() => q.getByLabel('Prompt').inputValue()).toMatch(/!\[A pie cut into four equal slices\]\(asset:ast_\w+\)/);
    await typeInto(q.getByLabel('Option 1', { exact: true }), '3/4');
    await typeInto(q.getByLabel('Option 2', { exact: true }), '2/6');
    await space(q.getByLabel('Option 1 is correct'));
    // A problem, shown next to its field in words, then fixed.
    await typeInto(q.getByLabel('Points'), '0');
    await saved(page);
    await expect.poll(() => question(page, 1).locator('.field-error').allInnerTexts()).toEqual([expect.stringMatching(/^Question 1, Points: /)]);
    expect(await question(page, 1).getByLabel('Points').getAttribute('aria-invalid')).toBe('true');
    await typeInto(question(page, 1).getByLabel('Points'), '2');

    q = await addQuestion(page, 1, 2, 'multiple_choice');
    await typeInto(q.getByLabel('Prompt'), 'Which numbers are prime?');
    await typeInto(q.getByLabel('Option 1', { exact: true }), '2');
    await typeInto(q.getByLabel('Option 2', { exact: true }), '9');
    await press(q.getByRole('button', { name: 'Add option' }));
    await typeInto(question(page, 2).getByLabel('Option 3', { exact: true }), '7');
    await space(question(page, 2).getByLabel('Option 1 is correct'));
    await space(question(page, 2).getByLabel('Option 3 is correct'));

    q = await addQuestion(page, 1, 3, 'short_text');
    await typeInto(q.getByLabel('Prompt'), 'Name the SI unit of force.');
    await press(q.getByRole('button', { name: 'Add answer' }));
    await typeInto(question(page, 3).getByLabel('Answer 1', { exact: true }), 'newton');
    await press(question(page, 3).getByRole('button', { name: 'Add answer' }));
    await typeInto(question(page, 3).getByLabel('Answer 2', { exact: true }), 'N');

    q = await addQuestion(page, 1, 4, 'numeric');
    await typeInto(q.getByLabel('Prompt'), 'With $$g = 9.8$$ compute $2g$.');
    await typeInto(q.getByLabel('Correct answer'), '19.6');
    await typeInto(q.getByLabel('Tolerance'), '0.1');

    q = await addQuestion(page, 1, 5, 'ordering');
    await typeInto(q.getByLabel('Prompt'), 'Order from smallest to largest.');
    await typeInto(q.getByLabel('Item 1', { exact: true }), '1/4');
    await typeInto(q.getByLabel('Item 2', { exact: true }), '1/2');
    await press(q.getByRole('button', { name: 'Add item' }));
    await typeInto(question(page, 5).getByLabel('Item 3', { exact: true }), '3/4');

    // Section 2: essay, matching, fill in the blanks, file upload.
    q = await addQuestion(page, 2, 6, 'essay');
    await typeInto(q.getByLabel('Prompt'), "Explain Newton's second law.");
    await typeInto(q.getByLabel('Rubric'), 'Force equals mass times acceleration, explained with an example.');

    q = await addQuestion(page, 2, 7, 'matching');
    await typeInto(q.getByLabel('Prompt'), 'Match each quantity with its unit.');
    await typeInto(q.getByLabel('Stem 1', { exact: true }), 'Force');
    await typeInto(q.getByLabel('Choice 1', { exact: true }), 'newton');
    await typeInto(q.getByLabel('Choice 2', { exact: true }), 'joule');
    await arrowDown(q.getByLabel('Correct choice for stem 1'), 1);

    q = await addQuestion(page, 2, 8, 'fill_blanks');
    await typeInto(q.getByLabel('Prompt'), 'Complete the sentence.');
    await typeInto(q.getByLabel('Text with blanks'), 'Water boils at ');
    await press(q.getByRole('button', { name: 'Add blank' }));
    await typeInto(question(page, 8).getByLabel('Accepted answers for blank 1'), '100');
    await expect.poll(() => question(page, 8).getByLabel('Text with blanks').inputValue()).toBe('Water boils at {{b1}}');

    q = await addQuestion(page, 2, 9, 'file_upload');
    await typeInto(q.getByLabel('Prompt'), 'Upload your force diagram.');
    await typeInto(q.getByLabel('Rubric'), 'Every force labelled.');

    await saved(page);
    expect(await page.locator('#editor-status').innerText()).toContain('ready to publish');
    await expect.poll(() => page.locator('.field-error.generated').count()).toBe(0);

    // A reload loses nothing, even of a change not yet sent.
    await page.getByLabel('Description').focus();
    await page.keyboard.type('Fractions, then forces.');
    await page.reload();
    await expect.poll(() => page.getByLabel('Description').inputValue()).toBe('Fractions, then forces.');
    await saved(page);

    // The preview at phone width, rendered by the student page's renderer.
    await press(page.getByRole('button', { name: 'Phone width' }));
    expect(await page.getByRole('button', { name: 'Phone width' }).getAttribute('aria-pressed')).toBe('true');
    expect((await page.locator('#preview-frame').boundingBox())!.width).toBeCloseTo(360, 0);
    const preview = page.frameLocator('#preview-frame');
    await expect.poll(() => preview.locator('math').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await preview.getByRole('img', { name: 'A pie cut into four equal slices' }).count()).toBe(1);

    await press(page.getByRole('button', { name: 'Publish version' }));
    await expect.poll(() => page.locator('#editor-status').innerText(), { timeout: 10_000 }).toMatch(/^Version 1 published/);
    const versionSummary = page.locator('details[data-version="1"] summary');
    await press(versionSummary);
    await expect.poll(() => page.locator('details[data-version="1"] .version-changes').innerText()).toContain('The first version');
    // Try it: the draft as a student takes it, in a new tab, in test mode.
    const [trial] = await Promise.all([context.waitForEvent('page'), press(page.getByRole('button', { name: 'Try it' }))]);
    await trial.getByRole('button', { name: 'Begin test' }).waitFor({ timeout: 15_000 });
    const { rows } = await h.pool.query('SELECT livemode FROM assignments WHERE test_id = $1', [testId]);
    expect(rows).toEqual([{ livemode: false }]);
    await closeContext(context);

    // The partner lists the test with the institution's key and assigns it.
    const listed = (await h.partner(h.a, 'GET', '/api/partner/v1/tests')).json();
    const test = listed.data.find((t: { testId: string }) => t.testId === testId);
    expect(test).toMatchObject({ title: 'Fractions and forces' });
    const a = await assign(h, h.a, { testId, externalUserId: 'editor-student' });

    // The student sees the formulas as MathML and the image by its alt text, answers and submits.
    const student = await browser.newContext({ viewport: VIEWPORTS.phone });
    const sp = await student.newPage();
    await sp.goto(a.startUrl);
    await sp.getByRole('button', { name: 'Begin test' }).click();
    await sp.getByRole('timer').waitFor();
    expect(await sp.locator('math').count()).toBeGreaterThanOrEqual(3);
    expect(await sp.getByRole('img', { name: 'A pie cut into four equal slices' }).count()).toBe(1);
    await sp.getByRole('radio', { name: '3/4' }).check();
    await sp.getByRole('button', { name: 'Submit test' }).click();
    await sp.getByRole('dialog').getByRole('button', { name: 'Submit', exact: true }).click();
    await expect.poll(async () => (await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${a.assignmentId}`)).json().status, { timeout: 15_000 }).toMatch(/^(completed|marking)$/);
    await closeContext(student);
  }, 240_000);

  it('warns a second author whose save would overwrite the first one’s, and lets them load the other version', async () => {
    const one = await authorPage(author);
    const two = await authorPage(second);
    await one.page.goto(`${origin}/portal/tests/${testId}/edit`);
    await two.page.goto(`${origin}/portal/tests/${testId}/edit`);
    await typeInto(one.page.getByLabel('Description'), 'Changed by Ada.');
    await saved(one.page);
    await typeInto(two.page.getByLabel('Description'), 'Changed by Ben.');
    const alert = two.page.getByRole('alert').filter({ hasText: 'Another editor saved this draft' });
    await alert.waitFor({ timeout: 10_000 });
    expect(await alert.innerText()).toContain(`saved by ${author.email}`);
    await press(two.page.getByRole('button', { name: 'Load their version' }));
    await expect.poll(() => two.page.getByLabel('Description').inputValue()).toBe('Changed by Ada.');
    await closeContext(one.context);
    await closeContext(two.context);
  }, 120_000);

  it('gives a short-text answer its own points, case and pattern by keyboard; a reload keeps them; axe passes at both widths', async () => {
    const { context, page } = await authorPage(author);
    await page.goto(`${origin}/portal/tests`);
    await press(page.getByRole('button', { name: 'New test' }));
    await page.getByRole('heading', { level: 1, name: 'Edit test' }).waitFor();
    const id = new URL(page.url()).pathname.split('/')[3]!;
    await typeInto(page.getByLabel('Title', { exact: true }), 'Spelling');
    const q = await addQuestion(page, 1, 1, 'short_text');
    await typeInto(q.getByLabel('Prompt'), 'Spell the word for what a rainbow shows.');
    await typeInto(q.getByLabel('Points'), '2');
    await press(q.getByRole('button', { name: 'Add answer' }));
    await typeInto(question(page, 1).getByLabel('Answer 1', { exact: true }), 'colour');
    await press(question(page, 1).getByRole('button', { name: 'Add answer' }));
    const q1 = question(page, 1);
    await typeInto(q1.getByLabel('Answer 2', { exact: true }), 'color');
    // The options are closed for a plain answer, and open by keyboard.
    expect(await q1.getByLabel('Answer 2 points').isVisible()).toBe(false);
    await press(q1.getByText('Options for answer 2'));
    await typeInto(q1.getByLabel('Answer 2 points'), '1');
    await typeInto(q1.getByLabel('Answer 2 pattern'), 'colou?r');
    // A pattern says its own capitals: the case box is checked and cannot be changed.
    expect(await q1.getByLabel('Answer 2 is case-sensitive').isChecked()).toBe(true);
    expect(await q1.getByLabel('Answer 2 is case-sensitive').isDisabled()).toBe(true);
    await press(q1.getByText('Options for answer 1'));
    await space(q1.getByLabel('Answer 1 is case-sensitive'));
    await saved(page);
    await expect.poll(() => page.locator('.field-error.generated').count()).toBe(0);
    const stored = async () => (await h.pool.query('SELECT content FROM test_drafts WHERE test_id = $1', [id])).rows[0].content;
    const expected = [{ text: 'colour', caseSensitive: true }, { text: 'color', points: 1, pattern: 'colou?r' }];
    expect((await stored()).sections[0].questions[0].acceptedAnswers).toEqual(expected);

    // A pattern that does not compile is named next to its field.
    await typeInto(q1.getByLabel('Answer 2 pattern'), 'colou?r{');
    await saved(page);
    await expect.poll(() => question(page, 1).locator('.field-error').allInnerTexts()).toEqual([expect.stringMatching(/^Question 1, Answer 2 pattern: has a \{ that is not a quantifier/)]);
    await typeInto(question(page, 1).getByLabel('Answer 2 pattern'), 'colou?r');
    await saved(page);

    await page.reload();
    const again = question(page, 1);
    await again.waitFor();
    expect(await again.getByLabel('Answer 1', { exact: true }).inputValue()).toBe('colour');
    expect(await again.getByLabel('Answer 1 is case-sensitive').isChecked()).toBe(true);
    expect(await again.getByLabel('Answer 2 points').inputValue()).toBe('1');
    expect(await again.getByLabel('Answer 2 pattern').inputValue()).toBe('colou?r');
    expect((await stored()).sections[0].questions[0].acceptedAnswers).toEqual(expected);
    await closeContext(context);

    for (const size of ['desktop', 'phone'] as const) {
      const view = await authorPage(author, size);
      await view.page.goto(`${origin}/portal/tests/${id}/edit`);
      await question(view.page, 1).waitFor();
      await checkPortalPage(view.page, 'test-editor-short-text', size, axeProblems);
      await closeContext(view.context);
    }
    expect(axeProblems).toEqual([]);
  }, 180_000);

  it('passes axe at desktop and phone width, with nothing wider than the screen', async () => {
    for (const size of ['desktop', 'phone'] as const) {
      const { context, page } = await authorPage(author, size);
      await page.goto(`${origin}/portal/tests/${testId}/edit`);
      await question(page, 1).waitFor();
      await checkPortalPage(page, 'test-editor', size, axeProblems);
      await closeContext(context);
    }
    expect(axeProblems).toEqual([]);
    expect(fs.existsSync(path.join(process.env.ASSAY_WRITE_SCREENSHOTS === '1' ? 'docs/screenshots' : path.join(os.tmpdir(), 'assay-screenshots'), 'portal-test-editor-desktop.png'))).toBe(true);
  }, 120_000);
});
