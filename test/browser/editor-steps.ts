import { afterAll, beforeAll, expect } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { createHarness, type Harness } from '../helpers/harness.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { VIEWPORTS, closeContext, freePort, launchBrowser } from './browser-env.js';
import { checkPortalPage, signInPortal } from './portal-check.js';

/**
 * What the form editor's per-type browser tests share: the keyboard steps
 * (press, type, arrow a select), a new test with one question of a type,
 * saving the draft and reading back its first question, and the editor page
 * checked with axe and for sideways scroll at 1280 and 360 px.
 */

/** What an editor test works with: the service listening at `origin`, an author of institution A, and Chromium. */
export interface EditorRig {
  h: Harness;
  browser: Browser;
  origin: string;
  author: PortalUser;
}

/**
 * The rig for the describe block it is called in: started before its tests
 * (beforeAll) and closed after them (afterAll); read its fields inside a test.
 */
export function editorRig(): EditorRig {
  const rig = {} as EditorRig;
  beforeAll(async () => {
    const port = await freePort();
    rig.origin = `http://127.0.0.1:${port}`;
    rig.h = await createHarness({ config: { publicBaseUrl: rig.origin, allowInsecureUrls: true } });
    await rig.h.app.listen({ port, host: '127.0.0.1' });
    rig.author = await signedIn(rig.h, 'author', rig.h.a.institutionId, 'Ada Author');
    rig.browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await rig.browser?.close();
    await rig.h?.close();
  });
  return rig;
}

export async function press(l: Locator): Promise<void> {
  await l.focus();
  await l.page().keyboard.press('Enter');
}

export async function typeInto(l: Locator, text: string): Promise<void> {
  await l.focus();
  await l.page().keyboard.press('Control+A');
  await l.page().keyboard.press('Delete');
  // One input event for the whole text, as a paste or an input method gives it: typing it key by key
  // adds nothing the editor reads (it listens to input) and took most of these tests' time.
  await l.page().keyboard.insertText(text);
}

/** Moves a closed select down with the arrow key until it holds `value`, as a keyboard user does. */
export async function arrowTo(l: Locator, value: string): Promise<void> {
  await l.focus();
  for (let i = 0; i < 30 && (await l.inputValue()) !== value; i++) await l.page().keyboard.press('ArrowDown');
  expect(await l.inputValue()).toBe(value);
}

export const question = (page: Page, n: number) => page.getByRole('group', { name: new RegExp(`^Question ${n} \\(`) });

export interface EditorSession {
  page: Page;
  testId: string;
  /** Uncaught errors of the page's scripts. */
  problems: string[];
  close(): Promise<void>;
}

/** A new test titled `title`, its first section's question 1 switched to `type` by keyboard, at desktop width. */
export async function newQuestionOfType(browser: Browser, h: Harness, origin: string, author: PortalUser, title: string, type: string): Promise<EditorSession> {
  const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
  await signInPortal(h.pool, h.clock.now(), context, author);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${origin}/portal/tests`);
  await press(page.getByRole('button', { name: 'New test' }));
  await page.getByRole('heading', { level: 1, name: 'Edit test' }).waitFor();
  const testId = new URL(page.url()).pathname.split('/')[3]!;
  await typeInto(page.getByLabel('Title', { exact: true }), title);
  await typeInto(page.getByLabel('Section 1 title'), 'Part one');
  await press(page.getByRole('button', { name: 'Add question to section 1' }));
  await arrowTo(question(page, 1).getByLabel('Question type'), type);
  return { page, testId, problems, close: () => closeContext(context) };
}

/** Save draft by keyboard; the save went through with no problem shown beside any field; the stored draft's first question. */
export async function saveAndReadFirstQuestion(h: Harness, s: EditorSession): Promise<Record<string, unknown>> {
  await s.page.getByRole('button', { name: 'Save draft' }).focus();
  await s.page.keyboard.press('Enter');
  await expect.poll(() => s.page.locator('#editor-status').innerText(), { timeout: 10_000 }).toMatch(/^Saved at/);
  expect((await s.page.locator('.field-error').allInnerTexts()).filter((t) => t.trim() !== '')).toEqual([]);
  const draft = (await h.pool.query('SELECT content FROM test_drafts WHERE test_id = $1', [s.testId])).rows[0].content;
  return (draft.sections ?? [{ questions: draft.questions }])[0].questions[0];
}

/**
 * The saved draft reopened at 1280 and at 360 px: `ready` is waited for (the type's fields drawn from the
 * draft), then axe finds nothing serious and nothing scrolls sideways.
 */
export async function checkEditorWidths(browser: Browser, h: Harness, origin: string, author: PortalUser, testId: string, name: string, ready: (page: Page) => Promise<void>): Promise<void> {
  const axeProblems: string[] = [];
  for (const size of ['desktop', 'phone'] as const) {
    const context = await browser.newContext({ viewport: VIEWPORTS[size] });
    try {
      await signInPortal(h.pool, h.clock.now(), context, author);
      const page = await context.newPage();
      await page.goto(`${origin}/portal/tests/${testId}/edit`);
      await question(page, 1).waitFor();
      await ready(page);
      await checkPortalPage(page, name, size, axeProblems);
    } finally {
      await closeContext(context);
    }
  }
  expect(axeProblems).toEqual([]);
}
