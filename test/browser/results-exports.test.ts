import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createHarness, type Harness } from '../helpers/harness.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { RESPONSES_HEADER, seedResponses } from '../helpers/responses.js';
import { closeContext, freePort, hasBrowser, launchBrowser, requireBrowser, VIEWPORTS } from './browser-env.js';
import { checkPortalPage, signInPortal } from './portal-check.js';

/**
 * The Assignments page's **Export responses (CSV)** in Chromium: a viewer
 * filtered to one test downloads the file under the test's title (the
 * browser takes `filename*`), and it holds one row per question with the
 * candidate's name and the answer in words. The button row passes axe and
 * fits at 1280 and 360 px (screenshots portal-assignments-export-*.png).
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

let h: Harness;
let browser: Browser;
let origin: string;
let viewer: PortalUser;
let testId: string;
const axeProblems: string[] = [];

run('the responses export on the Assignments page', () => {
  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin } });
    await h.app.listen({ port, host: '127.0.0.1' });
    viewer = await signedIn(h, 'viewer', h.a.institutionId, 'Vera Viewer');
    ({ testId } = await seedResponses(h, h.a));
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('downloads the responses of the filtered test under its title, and the page passes axe at both widths', async () => {
    for (const size of ['desktop', 'phone'] as const) {
      const context = await browser.newContext({ viewport: VIEWPORTS[size], acceptDownloads: true });
      await signInPortal(h.pool, h.clock.now(), context, viewer);
      const page = await context.newPage();
      await page.goto(`${origin}/portal/assignments?testId=${testId}`);
      const button = page.getByRole('link', { name: 'Export responses (CSV)' });
      await button.waitFor();
      if (size === 'desktop') {
        const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
        expect(download.suggestedFilename()).toMatch(/^Géographie- “Europe” 1-2 - responses - \d{4}-\d\d-\d\d\.csv$/);
        const bytes = fs.readFileSync((await download.path())!);
        expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
        const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
        expect(text.split('\r\n')[0]).toBe(RESPONSES_HEADER);
        const rows = parse(text, { columns: true }) as Array<Record<string, string>>;
        expect(rows.map((r) => [r.name, r.questionId, r.response])).toEqual([
          ['Zoë Ångström', 'capital', 'Paris'],
          ['Zoë Ångström', 'pairs', 'Spain → Madrid; Italy → Madrid'],
          ['Zoë Ångström', 'depth', '-3'],
          ['Zoë Ångström', 'both', 'Part 1: Russia; Part 2: 26'],
          ['Zoë Ångström', 'essay', "'=SUM(A1) flows north."],
          ['Zoë Ångström', 'map', 'Rhine map (final).pdf'],
        ]);
        // The screenshot shows the page at rest, not the pressed button.
        await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
        await page.mouse.move(0, 0);
      }
      await checkPortalPage(page, 'assignments-export', size, axeProblems);
      await closeContext(context);
    }
    expect(axeProblems).toEqual([]);
    // The download is on record under the viewer's name.
    const { rows } = await h.pool.query("SELECT actor_email, details->>'export' AS export FROM audit_log WHERE action = 'results.exported'");
    expect(rows).toEqual([{ actor_email: viewer.email, export: 'responses.csv' }]);
  }, 120_000);
});
