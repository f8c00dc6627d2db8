import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { portalJson } from '../helpers/authoring.js';
import { closeContext, hasBrowser, requireBrowser, SHOTS, VIEWPORTS } from './browser-env.js';
import { arrowTo, editorRig, press, typeInto } from './editor-steps.js';
import { checkPortalPage, signInPortal } from './portal-check.js';

/**
 * The form editor's Translations panel in Chromium, by keyboard: an author
 * states the test's language, adds French, translates some texts beside
 * their sources and saves, and sees the counts; once the source prompt
 * changes and is saved, the French prompt is flagged Out of date (after a
 * reload too) until it is edited and saved. An Arabic translation is
 * written right to left. axe finds nothing serious at 1280 and 360 px, and
 * at 360 px each source sits above its translation.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

let testId = '';
const axeProblems: string[] = [];

// As the form makes a test: the section and the question have no ids until the panel gives them.
const CONTENT = {
  title: 'Capitals',
  description: 'One question about Europe',
  durationMinutes: 10,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  contentFormat: 'plain',
  sections: [
    {
      title: 'Europe',
      questions: [{ type: 'single_choice', prompt: 'Capital of France?', points: 1, options: [{ id: 'o1', text: 'Paris' }, { id: 'o2', text: 'Lyon' }], correctOptionId: 'o1' }],
    },
  ],
};

async function saved(page: Page) {
  await press(page.getByRole('button', { name: 'Save draft' }));
  await expect.poll(() => page.locator('#editor-status').innerText(), { timeout: 10_000 }).toMatch(/^Saved at/);
}
/** The flag a translation's textarea is described by. */
async function flag(page: Page, label: string): Promise<string> {
  const id = await page.getByLabel(label, { exact: true }).getAttribute('aria-describedby');
  return page.locator(`[id="${id}"]`).innerText();
}
const panel = (page: Page) => page.getByRole('region', { name: 'Translations' });

run('the Translations panel', () => {
  const rig = editorRig();
  beforeAll(async () => {
    const created = await portalJson(rig.h, rig.author, 'POST', '/portal/authoring/tests', { content: CONTENT });
    expect(created.statusCode).toBe(201);
    testId = created.json().testId;
  });

  it('adds French by keyboard, translates beside the source, flags a changed source Out of date until edited, and writes Arabic right to left', async () => {
    const { h, browser, origin, author } = rig;
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    await signInPortal(h.pool, h.clock.now(), context, author);
    const page = await context.newPage();
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${origin}/portal/tests/${testId}/edit`);
    await panel(page).getByRole('heading', { name: 'Translations' }).waitFor();
    expect(await panel(page).innerText()).toContain('No translations yet.');

    await arrowTo(panel(page).getByLabel('Test language'), 'en');
    await arrowTo(panel(page).getByLabel('Add a language'), 'fr');
    await press(panel(page).getByRole('button', { name: 'Add language' }));
    // The focus goes to the first text to translate.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id && document.querySelector(`label[for="${document.activeElement.id}"]`)?.textContent)).toBe('Title, French');
    await page.keyboard.type('Capitales');
    // The question had no id: it is given one, and its texts are listed once the draft is saved.
    await saved(page);
    await page.getByLabel('Question 1 prompt, French', { exact: true }).waitFor();
    expect(await page.locator('.translation-source').first().innerText()).toContain('Capital');
    await typeInto(page.getByLabel('Question 1 prompt, French', { exact: true }), 'Capitale de la France ?');
    await typeInto(page.getByLabel('Question 1 option 1, French', { exact: true }), 'Paris');
    expect(await flag(page, 'Question 1 option 2, French')).toBe('Missing');
    expect(await flag(page, 'Question 1 prompt, French')).toBe('Translated');
    await saved(page);
    const counts = panel(page).locator('.translation-editor .translation-counts');
    await expect.poll(() => counts.innerText()).toBe('3 of 6 translated');
    const draft = (await portalJson(h, author, 'GET', `/portal/authoring/tests/${testId}/draft`)).json();
    expect(draft.content.language).toBe('en');
    const qid = draft.content.sections[0].questions[0].id as string;
    expect(draft.content.translations.fr).toEqual({ title: 'Capitales', questions: { [qid]: { prompt: 'Capitale de la France ?', 'options.o1.text': 'Paris' } } });

    // The source prompt changes: the French prompt is out of date, on the page and after a reload.
    await typeInto(page.getByRole('group', { name: /^Question 1 \(/ }).getByLabel('Prompt'), 'Which city is the capital of France?');
    await saved(page);
    await expect.poll(() => flag(page, 'Question 1 prompt, French')).toBe('Out of date');
    await expect.poll(() => counts.innerText()).toBe('3 of 6 translated, 1 out of date');
    await page.reload();
    await page.getByLabel('Question 1 prompt, French', { exact: true }).waitFor();
    expect(await flag(page, 'Question 1 prompt, French')).toBe('Out of date');
    expect(await page.getByLabel('Question 1 prompt, French', { exact: true }).inputValue()).toBe('Capitale de la France ?');
    expect(await panel(page).getByRole('listitem').innerText()).toContain('3 of 6 translated, 1 out of date');

    await checkPortalPage(page, 'editor-translations', 'desktop', axeProblems);
    fs.mkdirSync(SHOTS, { recursive: true });
    await panel(page).screenshot({ path: path.join(SHOTS, 'portal-editor-translations-panel-desktop.png') });

    // Edited, it is current at once, and stays so once saved and reloaded.
    await typeInto(page.getByLabel('Question 1 prompt, French', { exact: true }), 'Quelle ville est la capitale de la France ?');
    expect(await flag(page, 'Question 1 prompt, French')).toBe('Translated');
    await saved(page);
    await page.reload();
    await page.getByLabel('Question 1 prompt, French', { exact: true }).waitFor();
    expect(await flag(page, 'Question 1 prompt, French')).toBe('Translated');
    await expect.poll(() => counts.innerText()).toBe('3 of 6 translated');

    // Arabic: its texts are written right to left.
    await arrowTo(panel(page).getByLabel('Add a language'), 'ar');
    await press(panel(page).getByRole('button', { name: 'Add language' }));
    const arabic = page.getByLabel('Title, Arabic', { exact: true });
    expect(await arabic.evaluate((n) => [n.getAttribute('lang'), n.getAttribute('dir'), n === document.activeElement])).toEqual(['ar', 'rtl', true]);
    await page.keyboard.type('العواصم');
    await saved(page);
    expect((await portalJson(h, author, 'GET', `/portal/authoring/tests/${testId}/draft`)).json().translationStatus.ar.missing).toHaveLength(5);
    await closeContext(context);

    // At phone width: each source above its translation, nothing wider than the screen.
    const phone = await browser.newContext({ viewport: VIEWPORTS.phone });
    await signInPortal(h.pool, h.clock.now(), phone, author);
    const small = await phone.newPage();
    await small.goto(`${origin}/portal/tests/${testId}/edit`);
    await press(panel(small).getByRole('button', { name: 'Edit French' }));
    await small.getByLabel('Question 1 prompt, French', { exact: true }).waitFor();
    const row = small.locator('.translation-row').nth(1);
    const [source, target] = await Promise.all([row.locator('.translation-source').boundingBox(), row.locator('.translation-target').boundingBox()]);
    expect(target!.y).toBeGreaterThanOrEqual(source!.y + source!.height - 1);
    await checkPortalPage(small, 'editor-translations', 'phone', axeProblems);
    await panel(small).screenshot({ path: path.join(SHOTS, 'portal-editor-translations-panel-phone.png') });
    await closeContext(phone);
    expect(axeProblems).toEqual([]);
  }, 180_000);
});
