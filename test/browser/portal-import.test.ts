import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createHarness, type Harness } from '../helpers/harness.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { itemsPackage } from '../helpers/qti.js';
import { freePort, hasBrowser, launchBrowser, requireBrowser, VIEWPORTS, closeContext } from './browser-env.js';
import { checkPortalPage, signInPortal } from './portal-check.js';

/**
 * An author imports a QTI package in Chromium: from the Tests page to the
 * Import page, a check first (the report, nothing created), then the import
 * (the report, a link to the editor), and the test is in the Tests list
 * with its draft holding the imported questions. axe and overflow at 1280
 * and 360 px; screenshots docs/screenshots/portal-import-*.png.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

let h: Harness;
let browser: Browser;
let origin: string;
let author: PortalUser;
const axeProblems: string[] = [];
const PACKAGE = () => Buffer.from(itemsPackage(['choice-single.xml', 'choice-multiple-partial.xml', 'text-entry-string.xml', 'match.xml', 'skip-hotspot.xml', 'skip-custom-rp.xml'], '2.2'));

run('an author imports a package in the portal', () => {
  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin } });
    await h.app.listen({ port, host: '127.0.0.1' });
    author = await signedIn(h, 'author', h.a.institutionId, 'Ada Author');
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('checks, imports, reads the report and finds the test with its questions, at both widths', async () => {
    for (const size of ['desktop', 'phone'] as const) {
      const context = await browser.newContext({ viewport: VIEWPORTS[size] });
      await signInPortal(h.pool, h.clock.now(), context, author);
      const page = await context.newPage();
      await page.goto(`${origin}/portal/tests`);
      await page.getByRole('link', { name: 'Import a test' }).click();
      await page.getByRole('heading', { level: 1, name: 'Import a test' }).waitFor();
      await checkPortalPage(page, 'import-form', size, axeProblems);

      // Check only: the report, nothing created.
      const before = Number((await h.pool.query('SELECT count(*) FROM tests')).rows[0].count);
      await page.getByLabel('Package or CSV file').setInputFiles({ name: 'biology.zip', mimeType: 'application/zip', buffer: PACKAGE() });
      await page.getByLabel('Check only: show the report, create nothing').check();
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      await page.getByRole('heading', { name: 'Report of the check' }).waitFor();
      expect(await page.getByRole('status').innerText()).toContain('4 questions would be imported. Nothing was created');
      const skipped = await page.getByRole('table', { name: 'Skipped items, with why' }).innerText();
      expect(skipped).toContain('the graphic interaction shows no image');
      expect(skipped).toMatch(/the response processing cannot be run/);
      expect(Number((await h.pool.query('SELECT count(*) FROM tests')).rows[0].count)).toBe(before);
      await checkPortalPage(page, 'import-check', size, axeProblems);

      // The import itself.
      await page.getByLabel('Package or CSV file').setInputFiles({ name: 'biology.zip', mimeType: 'application/zip', buffer: PACKAGE() });
      await page.getByLabel('Title (optional)').fill(`Biology bank (${size})`);
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      await page.getByRole('heading', { name: 'Import report' }).waitFor();
      expect(await page.getByRole('status').innerText()).toContain(`Imported biology.zip as the draft test “Biology bank (${size})” with 4 questions.`);
      const imported = await page.getByRole('table', { name: 'Imported items: the question each became' }).innerText();
      expect(imported).toMatch(/planets-1[\s\S]*Single choice/);
      expect(imported).toMatch(/authors-10[\s\S]*Matching/);
      const editHref = await page.getByRole('link', { name: 'Open in the editor' }).getAttribute('href');
      const testId = /^\/portal\/tests\/(tst_[A-Za-z0-9_-]+)\/edit$/.exec(editHref ?? '')![1]!;
      await checkPortalPage(page, 'import-report', size, axeProblems);

      // The test is in the Tests list, and its draft holds the four questions.
      await page.getByRole('link', { name: 'Tests', exact: false }).first().click();
      const table = page.getByRole('table', { name: "Your institution's tests, newest first" });
      await table.waitFor();
      expect(await table.innerText()).toContain(`Biology bank (${size})`);
      expect(await table.innerText()).toContain(testId);
      const draft = await page.request.get(`${origin}/portal/authoring/tests/${testId}/draft`);
      expect(draft.status()).toBe(200);
      const content = (await draft.json()).content as { questions: Array<{ type: string }> };
      expect(content.questions.map((q) => q.type)).toEqual(['single_choice', 'multiple_choice', 'short_text', 'matching']);

      // It opens in the editor, a form per question, and its preview shows the four questions as a student sees them.
      await page.getByRole('link', { name: `Biology bank (${size})`, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Edit test' }).waitFor();
      await page.getByRole('group', { name: /^Question 4 \(Matching\)/ }).waitFor();
      expect(await page.getByRole('group', { name: /^Question \d \(/ }).count()).toBe(4);
      const preview = page.frameLocator('#preview-frame');
      await expect.poll(() => preview.locator('fieldset.question').count(), { timeout: 10_000 }).toBe(4);
      expect(await preview.locator('.notice').count()).toBe(0);
      await closeContext(context);
    }
    expect(axeProblems).toEqual([]);
  }, 120_000);
});
