import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { portalJson } from '../helpers/authoring.js';
import { closeContext, hasBrowser, requireBrowser, VIEWPORTS } from './browser-env.js';
import { editorRig, press, question } from './editor-steps.js';
import { checkPortalPage, signInPortal } from './portal-check.js';

/**
 * The form editor's fields in Chromium: at 360 px nothing in the editor is
 * wider than the screen, even with a long section title in each question's
 * "Section of question N" select; the draft's problems are in words at
 * their own fields (a section without questions at its Add question
 * button, not its title); Add blank puts the blank at the text's cursor, a
 * selected word becoming its answer, with the cursor after it; a file
 * upload's types are ticks for groups, a stored list showing as its ticks
 * and the rest under Other MIME types. axe at 1280 and 360 px.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

const LONG_TITLE = 'Reading and understanding of extraordinarily long passages on Pneumonoultramicroscopicsilicovolcanoconiosis';
const CONTENT = {
  title: 'Field checks',
  durationMinutes: 10,
  proctoring: 'none',
  marking: 'manual',
  resultVisibility: 'after_review',
  contentFormat: 'plain',
  sections: [
    {
      title: LONG_TITLE,
      questions: [
        { type: 'fill_blanks', prompt: 'Complete the sentence.', points: 2, text: 'The sun rises in the east.', blanks: [] },
        { type: 'file_upload', prompt: 'Upload your essay.', points: 5, accept: ['application/pdf', 'image/*', 'application/zip'], maxBytes: 10485760 },
      ],
    },
    { title: '', questions: [] },
  ],
};

let testId = '';
const axeProblems: string[] = [];

async function openEditor(rig: ReturnType<typeof editorRig>, size: keyof typeof VIEWPORTS) {
  const context = await rig.browser.newContext({ viewport: VIEWPORTS[size] });
  await signInPortal(rig.h.pool, rig.h.clock.now(), context, rig.author);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${rig.origin}/portal/tests/${testId}/edit`);
  await question(page, 1).waitFor();
  return { page, errors, close: () => closeContext(context) };
}

/** The text of the problem notes a control is described by. */
async function notesOf(page: Page, control: ReturnType<Page['getByLabel']>): Promise<string[]> {
  const ids = ((await control.getAttribute('aria-describedby')) ?? '').split(' ').filter((id) => id.startsWith('err-'));
  return Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).innerText()));
}

async function saved(page: Page) {
  await press(page.getByRole('button', { name: 'Save draft' }));
  await expect.poll(() => page.locator('#editor-status').innerText(), { timeout: 10_000 }).toMatch(/^Saved at/);
}

async function storedQuestion(rig: ReturnType<typeof editorRig>, n: number): Promise<Record<string, unknown>> {
  const content = (await rig.h.pool.query('SELECT content FROM test_drafts WHERE test_id = $1', [testId])).rows[0].content;
  return content.sections[0].questions[n];
}

run('the editor fields', () => {
  const rig = editorRig();
  beforeAll(async () => {
    const created = await portalJson(rig.h, rig.author, 'POST', '/portal/authoring/tests', { content: CONTENT });
    expect(created.statusCode).toBe(201);
    testId = created.json().testId;
  });

  it('at 360 px nothing in the editor is wider than the screen, a long section title included', async () => {
    const s = await openEditor(rig, 'phone');
    try {
      // The select naming each section by its title is there, the long title in it.
      await expect.poll(() => question(s.page, 1).getByLabel('Section of question 1').innerText()).toContain('Pneumonoultramicroscopicsilicovolcanoconiosis');
      const wider = await s.page.evaluate(() =>
        Array.from(document.querySelectorAll('#test-editor *'))
          .filter((n) => !n.closest('.sr-only') && n.getBoundingClientRect().width > 0)
          .filter((n) => n.getBoundingClientRect().right > window.innerWidth + 0.5)
          .map((n) => `${n.tagName.toLowerCase()}.${(n as HTMLElement).className} ${Math.round(n.getBoundingClientRect().right)}px`),
      );
      expect(wider).toEqual([]);
      await checkPortalPage(s.page, 'editor-fields', 'phone', axeProblems);
      expect(s.errors).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('shows each problem in words at its own field: an empty section at its Add question button, its title at the title', async () => {
    const s = await openEditor(rig, 'desktop');
    try {
      const { page } = s;
      const addQuestion = page.getByRole('button', { name: 'Add question to section 2' });
      expect(await notesOf(page, addQuestion)).toEqual(['Add at least one question to section 2']);
      expect(await notesOf(page, page.getByLabel('Section 2 title'))).toEqual(['Enter a title for section 2']);
      expect(await page.getByLabel('Section 2 title').getAttribute('aria-invalid')).toBe('true');
      expect(await notesOf(page, question(page, 1).getByRole('button', { name: 'Add blank' }))).toEqual(['Question 1: Add at least one blank']);
      const summary = await page.locator('#problem-summary').innerText();
      expect(summary).toContain('Add at least one question to section 2');
      expect(summary).not.toMatch(/must|NOT have|items|characters|is required/);
      // The summary's link goes to the button where the questions are added.
      await page.locator('#problem-summary a', { hasText: 'Add at least one question to section 2' }).click();
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Add question to section 2');
      expect(s.errors).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('Add blank puts the blank at the cursor, a selected word becoming its answer, and leaves the cursor after it', async () => {
    const s = await openEditor(rig, 'desktop');
    try {
      const { page } = s;
      const text = question(page, 1).getByLabel('Text with blanks');
      // Select "east" by keyboard, then go to Add blank and press it.
      await text.focus();
      await page.keyboard.press('End');
      await page.keyboard.press('ArrowLeft');
      for (let i = 0; i < 4; i++) await page.keyboard.press('Shift+ArrowLeft');
      await press(question(page, 1).getByRole('button', { name: 'Add blank' }));
      await expect.poll(() => text.inputValue()).toBe('The sun rises in the {{b1}}.');
      expect(await page.evaluate(() => [(document.activeElement as HTMLTextAreaElement).dataset.path, (document.activeElement as HTMLTextAreaElement).selectionStart])).toEqual([
        'sections.0.questions.0.text',
        'The sun rises in the {{b1}}'.length,
      ]);
      expect(await question(page, 1).getByLabel('Accepted answers for blank 1').inputValue()).toBe('east');
      // No selection: the blank goes where the cursor is, after "The ".
      await page.keyboard.press('Home');
      for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
      await press(question(page, 1).getByRole('button', { name: 'Add blank' }));
      await expect.poll(() => text.inputValue()).toBe('The {{b2}}sun rises in the {{b1}}.');
      expect(await page.evaluate(() => (document.activeElement as HTMLTextAreaElement).selectionStart)).toBe('The {{b2}}'.length);
      expect(await question(page, 1).getByLabel('Accepted answers for blank 2').inputValue()).toBe('');
      await saved(page);
      const stored = await storedQuestion(rig, 0);
      expect(stored.text).toBe('The {{b2}}sun rises in the {{b1}}.');
      expect(stored.blanks).toEqual([{ id: 'b1', kind: 'text', acceptedAnswers: ['east'] }, { id: 'b2', kind: 'text', acceptedAnswers: [] }]);
      expect(s.errors).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('file types are ticks for groups: a stored list shows as its ticks and the rest under Other MIME types, and ticking changes the list', async () => {
    const s = await openEditor(rig, 'desktop');
    try {
      const { page } = s;
      const q2 = question(page, 2);
      const tick = (name: string) => q2.getByRole('checkbox', { name: new RegExp(`^${name} \\(`) });
      expect(await tick('PDF').isChecked()).toBe(true);
      expect(await tick('Images').isChecked()).toBe(true); // image/*
      expect(await tick('Word documents').isChecked()).toBe(false);
      expect(await tick('Spreadsheets').isChecked()).toBe(false);
      expect(await q2.getByLabel('Other MIME types').inputValue()).toBe('application/zip');
      await expect.poll(() => q2.getByRole('group', { name: 'Accepted file types' }).innerText()).toContain('Word documents (.docx, .odt)');
      // By keyboard: Word documents on, Images off.
      await tick('Word documents').focus();
      await page.keyboard.press('Space');
      await tick('Images').focus();
      await page.keyboard.press('Space');
      await saved(page);
      expect((await storedQuestion(rig, 1)).accept).toEqual([
        'application/pdf',
        'application/zip',
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        'application/vnd.oasis.opendocument.text',
      ]);
      await checkPortalPage(page, 'editor-fields', 'desktop', axeProblems);
      expect(axeProblems).toEqual([]);
      expect(s.errors).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
