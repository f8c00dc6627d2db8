import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { signedIn } from '../helpers/portal.js';
import { signInPortal } from './portal-check.js';
import { assign, createPublishedTest } from '../helpers/student.js';
import { TRIANGLE_ALT, markdownTest, storeBrokenPrompt, uploadSvg } from '../helpers/markdown-content.js';
import { SHOTS, VIEWPORTS, freePort, hasBrowser, launchBrowser, seriousAxeViolations, closeContext } from './browser-env.js';

// A Markdown test in Chromium: formulas are MathML the browser lays out itself (no script, no font),
// the image loads from the student's asset path with its alt text, and the page passes axe at both widths.
// The markup itself is checked in test/student/markdown-content.test.ts.

describe.skipIf(!hasBrowser)('a Markdown test in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  let tenant: Tenant;
  let testId: string;

  beforeAll(async () => {
    const port = await freePort();
    h = await createHarness({ config: { publicBaseUrl: `http://127.0.0.1:${port}`, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    tenant = await h.createTenant('Northfield University', ['localhost']);
    const assetId = await uploadSvg(h);
    testId = await createPublishedTest(h, tenant, markdownTest(assetId));
    await storeBrokenPrompt(h, testId, 'es');
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  for (const size of ['desktop', 'phone'] as const) {
    it(`shows the formulas as MathML and the image with its alt text, no serious axe violation, fits ${VIEWPORTS[size].width} px`, async () => {
      const a = await assign(h, tenant, { testId, externalUserId: `md-${size}` });
      const context = await browser.newContext({ viewport: VIEWPORTS[size] });
      const page = await context.newPage();
      const problems: string[] = [];
      // A failed load is reported with its URL below (the console's message has none).
      page.on('console', (m) => {
        if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) problems.push(m.text());
      });
      page.on('response', (r) => {
        if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) problems.push(`${r.status()} ${r.url()}`);
      });
      page.on('pageerror', (e) => problems.push(e.message));
      await page.goto(a.startUrl);
      await page.getByRole('button', { name: 'Begin test' }).click();
      await page.getByRole('timer').waitFor();

      // MathML elements, laid out by the browser (a formula has a size), the display one as a block.
      const formulas = page.locator('math');
      expect(await formulas.count()).toBeGreaterThanOrEqual(10);
      const box = await page.locator('.prompt math[display="block"]').first().boundingBox();
      expect(box && box.height > 10 && box.width > 20).toBe(true);
      expect(await page.locator('math').first().evaluate((m) => m.namespaceURI)).toBe('http://www.w3.org/1998/Math/MathML');

      // The image: its alt text, and its bytes loaded from the student's path (under the page's CSP).
      const img = page.getByRole('img', { name: TRIANGLE_ALT });
      await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBe(200);
      expect(await img.getAttribute('src')).toMatch(/^\/a\/content-assets\/ast_/);

      // The question's group is named by its number and its prompt; a select by its stem; a move button in plain text.
      await page.getByRole('group', { name: /Question 1 .*The triangle below has legs/ }).waitFor();
      await page.getByRole('combobox', { name: 'cube' }).waitFor();
      expect(await page.getByRole('button', { name: /^Move up: \\frac\{1\}\{2\}$/ }).count()).toBe(1);
      // The formula Temml could not read is shown as its source; raw HTML as text.
      expect(await page.locator('code.math-error').innerText()).toBe('$\\frac{1$');
      expect(await page.getByText('<b>not bold</b>').count()).toBe(1);

      expect(await seriousAxeViolations(page), size).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), size).toBeLessThanOrEqual(VIEWPORTS[size].width);
      expect(problems).toEqual([]);

      fs.mkdirSync(SHOTS, { recursive: true });
      await page.locator('section.test-section').screenshot({ path: path.join(SHOTS, `content-markdown-${size}.png`) });
      await closeContext(context);
    }, 60_000);
  }

  it("the operator's editor frames the preview: the formulas are MathML and the image loads from the staff path", async () => {
    const operator = await signedIn(h, 'operator');
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    await signInPortal(h.pool, new Date(), context, operator);
    const page = await context.newPage();
    await page.goto(`${h.ctx.config.publicBaseUrl}/portal/tests/${testId}`);
    const frame = page.frameLocator('iframe.preview-frame');
    await frame.locator('math').first().waitFor();
    const img = frame.getByRole('img', { name: TRIANGLE_ALT });
    expect(await img.getAttribute('src')).toMatch(/^\/portal\/content-assets\/ast_/);
    await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBe(200);
    await closeContext(context);
  }, 60_000);
});
