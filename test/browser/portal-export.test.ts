import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Download } from 'playwright-core';
import { portalJson } from '../helpers/authoring.js';
import { SHOTS, VIEWPORTS, closeContext, hasBrowser, requireBrowser } from './browser-env.js';
import { editorRig } from './editor-steps.js';
import { checkPortalPage, signInPortal } from './portal-check.js';

/**
 * Export in Chromium: **Export QTI 3.0 package** on the editor downloads the
 * draft, the Tests page's **CSV** link on a test's row downloads its latest
 * version, each named by the test's title; that CSV checked on the Import
 * page is imported with **Import this file**, without choosing it again;
 * a test the CSV cannot hold is refused on a page that says why.
 * axe and overflow at 1280 and 360 px; screenshots
 * docs/screenshots/portal-export-*.png.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

const CONTENT = {
  title: 'Planets quiz',
  description: '',
  durationMinutes: 10,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: null,
  contentFormat: 'plain',
  questions: [
    { type: 'single_choice', prompt: 'Which planet is the largest?', points: 2, options: [{ id: 'a', text: 'Mars' }, { id: 'b', text: 'Jupiter' }], correctOptionId: 'b' },
    { type: 'numeric', prompt: 'How many planets orbit the Sun?', points: 1, answer: 8 },
  ],
};

const bytesOf = async (d: Download) => fs.readFileSync((await d.path())!);

run('authors export a test from the editor and the Tests page', () => {
  const rig = editorRig();

  it('downloads the QTI package and the CSV, and imports the CSV again with Import this file, at both widths', async () => {
    const { h, browser, origin, author } = rig;
    const axeProblems: string[] = [];
    for (const size of ['desktop', 'phone'] as const) {
      const created = await portalJson(h, author, 'POST', '/portal/authoring/tests', { content: { ...CONTENT, title: `Planets quiz ${size}` } });
      const { testId, revision } = created.json();
      expect((await portalJson(h, author, 'POST', `/portal/authoring/tests/${testId}/versions`, { revision })).statusCode).toBe(201);
      const context = await browser.newContext({ viewport: VIEWPORTS[size] });
      try {
        await signInPortal(h.pool, h.clock.now(), context, author);
        const page = await context.newPage();

        // The editor: the saved draft as a QTI package.
        await page.goto(`${origin}/portal/tests/${testId}/edit`);
        await page.getByRole('heading', { name: 'Export' }).waitFor();
        const [zip] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export QTI 3.0 package' }).click()]);
        expect(zip.suggestedFilename()).toBe(`Planets quiz ${size} (QTI 3.0).zip`);
        expect((await bytesOf(zip)).subarray(0, 2).toString()).toBe('PK');
        await checkPortalPage(page, 'export-editor', size, axeProblems);
        // The whole editor is taller than a screenshot holds at 360 px: the panel on its own too.
        await page.locator('section.export').screenshot({ path: path.join(SHOTS, `portal-export-editor-panel-${size}.png`) });

        // The Tests page: the row's CSV link, named by its test.
        await page.goto(`${origin}/portal/tests`);
        const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: `CSV of Planets quiz ${size}` }).click()]);
        expect(csv.suggestedFilename()).toBe(`Planets quiz ${size}.csv`);
        const csvBytes = await bytesOf(csv);
        expect(csvBytes.toString('utf8')).toContain('Which planet is the largest?');
        await checkPortalPage(page, 'export-tests', size, axeProblems);

        // A test the CSV cannot hold: the refusal in words, with the way back to the editor.
        const slider = { type: 'slider', prompt: 'How warm is it?', points: 1, min: 0, max: 40, step: 1, correct: 20 };
        const other = (await portalJson(h, author, 'POST', '/portal/authoring/tests', { content: { ...CONTENT, title: 'Warmth', questions: [...CONTENT.questions, slider] } })).json();
        await page.goto(`${origin}/portal/tests/${other.testId}/export?format=csv&from=draft`);
        await page.getByRole('heading', { level: 1, name: 'This test cannot be written as CSV' }).waitFor();
        expect(await page.getByRole('alert').innerText()).toContain('is a slider question, which CSV cannot hold');
        await checkPortalPage(page, 'export-refused', size, axeProblems);

        // The CSV checked, then imported from the kept file.
        await page.goto(`${origin}/portal/tests/import`);
        await page.getByLabel('Package or CSV file').setInputFiles({ name: `Planets quiz ${size}.csv`, mimeType: 'text/csv', buffer: csvBytes });
        await page.getByLabel('Title (optional)').fill(`Planets again ${size}`);
        await page.getByLabel('Check only: show the report, create nothing').check();
        await page.getByRole('button', { name: 'Import', exact: true }).click();
        await page.getByRole('heading', { name: 'Report of the check' }).waitFor();
        expect(await page.getByRole('table', { name: 'Imported items: the question each became' }).innerText()).toContain('How many planets orbit the Sun?');
        await checkPortalPage(page, 'import-checked', size, axeProblems);
        await page.getByRole('button', { name: 'Import this file' }).click();
        await page.getByRole('heading', { name: 'Import report' }).waitFor();
        expect(await page.getByRole('status').innerText()).toContain(`Imported Planets quiz ${size}.csv as the draft test “Planets again ${size}” with 2 questions.`);
      } finally {
        await closeContext(context);
      }
    }
    expect(axeProblems).toEqual([]);
  }, 120_000);
});
