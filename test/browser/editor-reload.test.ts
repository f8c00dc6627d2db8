import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { portalJson } from '../helpers/authoring.js';
import { portalPost, signedIn } from '../helpers/portal.js';
import { closeContext, hasBrowser, requireBrowser, SHOTS, VIEWPORTS } from './browser-env.js';
import { editorRig } from './editor-steps.js';
import { checkPortalPage, signInPortal } from './portal-check.js';

/**
 * The form editor in Chromium, as field testing used it: a reload right
 * after typing is no conflict and loses nothing, while another person's save
 * in between still is one; a version's changes read with their values
 * before and after; the preview says how many questions of a pool a
 * candidate gets; the Staff page lists every role with what it can do.
 * Each page is checked with axe and for sideways scroll at 1280 and 360 px.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

const q = (prompt: string, points = 1) => ({ type: 'numeric', prompt, points, answer: 1 });
const CONTENT = {
  title: 'Fractions',
  description: 'Two sections, one of them a pool',
  durationMinutes: 20,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: 50,
  contentFormat: 'plain',
  sections: [
    { title: 'Warm-up', questions: [q('What is 1/2 + 1/4?')] },
    { title: 'Pool', draw: 2, questions: [q('What is 2/3 of 9?'), q('What is 3/4 of 8?'), q('What is 1/5 of 10?')] },
  ],
};

run('the form editor after field testing', () => {
  const rig = editorRig();
  const axeProblems: string[] = [];
  let testId = '';
  const draftRow = async () =>
    (await rig.h.pool.query<{ revision: number; title: string }>("SELECT revision, content->>'title' AS title FROM test_drafts WHERE test_id = $1", [testId])).rows[0]!;

  beforeAll(async () => {
    const { h, author } = rig;
    const created = await portalJson(h, author, 'POST', '/portal/authoring/tests', { content: CONTENT });
    expect(created.statusCode).toBe(201);
    testId = created.json().testId;
    expect((await portalJson(h, author, 'POST', `/portal/authoring/tests/${testId}/versions`, { revision: 1 })).statusCode).toBe(201);
    // Version 2: a longer test, a higher pass mark, a prompt reworded and a question worth more.
    const draft = (await portalJson(h, author, 'GET', `/portal/authoring/tests/${testId}/draft`)).json();
    const [warmUp, pool] = draft.content.sections;
    const content = {
      ...draft.content,
      durationMinutes: 25,
      passPercent: 60,
      sections: [{ ...warmUp, questions: [{ ...warmUp.questions[0], prompt: 'What is 1/2 + 1/3?', points: 2 }] }, pool],
    };
    const saved = await portalJson(h, author, 'PUT', `/portal/authoring/tests/${testId}/draft`, { revision: draft.revision, content });
    expect((await portalJson(h, author, 'POST', `/portal/authoring/tests/${testId}/versions`, { revision: saved.json().revision })).statusCode).toBe(201);
  });

  const titleField = (page: Page) => page.getByLabel('Title', { exact: true });
  const status = (page: Page) => page.locator('#editor-status');

  it('reloads right after typing without a conflict or a lost keystroke; another person’s save in between is still a conflict', async () => {
    const { h, browser, origin, author } = rig;
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    await signInPortal(h.pool, h.clock.now(), context, author);
    const page = await context.newPage();
    await page.goto(`${origin}/portal/tests/${testId}/edit`);
    await titleField(page).click();
    await page.keyboard.press('End');
    await page.keyboard.type(' and decimals');
    // Reloaded at once, long before the editor's own save would start.
    await page.reload();
    await titleField(page).waitFor();
    await expect.poll(async () => (await draftRow()).title, { timeout: 10_000 }).toBe('Fractions and decimals');
    await expect.poll(() => status(page).innerText(), { timeout: 10_000 }).toMatch(/^Saved at|^Draft saved/);
    await page.waitForTimeout(1500);
    expect(await page.locator('.editor-conflict').count()).toBe(0);
    expect(await page.locator('#editor-alert').innerText()).toBe('');
    expect(await titleField(page).inputValue()).toBe('Fractions and decimals');

    // The field report's case: the reload overtakes the editor's own save. The draft's row is held locked, so that
    // save waits in the database while the page reloads, reads the older revision and saves its kept copy from it.
    await titleField(page).press('End');
    await page.keyboard.type('!');
    const lock = await h.pool.connect();
    try {
      await lock.query('BEGIN');
      await lock.query('SELECT 1 FROM test_drafts WHERE test_id = $1 FOR UPDATE', [testId]);
      await expect.poll(() => status(page).innerText(), { timeout: 10_000 }).toBe('Saving…');
      await page.keyboard.type('?');
      await page.reload();
      await titleField(page).waitFor();
      expect(await titleField(page).inputValue()).toBe('Fractions and decimals!?');
      await page.waitForTimeout(1500);
      await lock.query('COMMIT');
    } finally {
      lock.release();
    }
    await expect.poll(async () => (await draftRow()).title, { timeout: 10_000 }).toBe('Fractions and decimals!?');
    await expect.poll(() => status(page).innerText(), { timeout: 10_000 }).toMatch(/^Saved at/);
    expect(await page.locator('.editor-conflict').count()).toBe(0);
    expect(await titleField(page).inputValue()).toBe('Fractions and decimals!?');

    // Bob saves while Ada's typing waits for its save: Ada is told, and chooses.
    await titleField(page).press('End');
    await page.keyboard.type(' (Ada)');
    const bob = await signedIn(h, 'author', h.a.institutionId, 'Bob');
    const current = (await portalJson(h, bob, 'GET', `/portal/authoring/tests/${testId}/draft`)).json();
    const bobs = await portalJson(h, bob, 'PUT', `/portal/authoring/tests/${testId}/draft`, { revision: current.revision, content: { ...current.content, title: 'Fractions (Bob)' }, editorId: 'tab-bob-00001' });
    expect(bobs.statusCode).toBe(200);
    await page.locator('.editor-conflict').waitFor({ timeout: 10_000 });
    expect(await page.locator('.editor-conflict').innerText()).toContain(bob.email);
    expect((await draftRow()).title).toBe('Fractions (Bob)');
    await closeContext(context);
  });

  it('shows each version’s changes with their values, and states each pool in the preview, at 1280 and 360 px', async () => {
    const { h, browser, origin, author } = rig;
    // A Try it run: the editor links its author to it (trials stay out of the marking queue and the listings).
    expect((await portalPost(h, author, `/portal/tests/${testId}/try`)).statusCode).toBe(303);
    for (const size of ['desktop', 'phone'] as const) {
      const context = await browser.newContext({ viewport: VIEWPORTS[size] });
      await signInPortal(h.pool, h.clock.now(), context, author);
      const page = await context.newPage();
      await page.goto(`${origin}/portal/tests/${testId}/edit`);
      expect(await page.locator('#last-trial').innerText()).toMatch(/^Your last Try it run, started .+, status Assigned: see its answers and result\./);
      await page.locator('.editor-bar').screenshot({ path: path.join(SHOTS, `portal-editor-last-trial-${size}.png`) });
      const v2 = page.locator('details[data-version="2"]');
      await v2.locator('summary').click();
      const changes = v2.locator('.version-changes li');
      await changes.first().waitFor();
      const texts = await changes.allInnerTexts();
      expect(texts[0]).toBe('Test settings changed: Duration 20 → 25 min; Pass mark 50 % → 60 %.');
      expect(texts[1]).toMatch(/^Question q_\w+ changed: Points 1 → 2; Prompt “What is 1\/2 \+ 1\/4\?” → “What is 1\/2 \+ 1\/3\?”\.$/);
      await v2.scrollIntoViewIfNeeded();
      await page.locator('section.versions').screenshot({ path: path.join(SHOTS, `portal-editor-version-changes-${size}.png`) });

      await page.goto(`${origin}/portal/tests/${testId}/draft/preview`);
      const notes = await page.locator('.pool-note').allInnerTexts();
      expect(notes).toEqual(['Candidates get 2 of these 3 questions, drawn for each candidate; the preview shows them all.']);
      await page.locator('.pool-note').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, `portal-editor-preview-pool-${size}.png`) });
      await closeContext(context);
    }
  });

  it('lists every role on the Staff page with what it can do, at 1280 and 360 px', async () => {
    const { h, browser, origin } = rig;
    const admin = await signedIn(h, 'admin', h.a.institutionId, 'Ines Admin');
    for (const size of ['desktop', 'phone'] as const) {
      const context = await browser.newContext({ viewport: VIEWPORTS[size] });
      await signInPortal(h.pool, h.clock.now(), context, admin);
      const page = await context.newPage();
      await page.goto(`${origin}/portal/staff`);
      const roles = page.getByRole('region', { name: 'Roles and what each can do' });
      expect(await roles.locator('dt').allInnerTexts()).toEqual(['Admin', 'Author', 'Reviewer', 'Viewer']);
      expect(await roles.locator('dd').nth(1).innerText()).toContain("Write, try, publish and delete the institution's own tests");
      await checkPortalPage(page, 'staff-roles', size, axeProblems);
      await closeContext(context);
    }
    expect(axeProblems).toEqual([]);
  });
});
