import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { AUTO_TEST, createHarness, type Harness } from '../helpers/harness.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { portalJson } from '../helpers/authoring.js';
import { freePort, hasBrowser, launchBrowser, requireBrowser, VIEWPORTS, closeContext } from './browser-env.js';
import { checkPortalPage, signInPortal } from './portal-check.js';

/**
 * An author's Tests page in Chromium: reached from the navigation (at phone
 * width behind the Menu button), it lists the institution's own tests, one
 * published and one still a draft. At 1280 and 360 px axe finds nothing
 * serious and nothing is wider than the viewport.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

let h: Harness;
let browser: Browser;
let origin: string;
let author: PortalUser;
const axeProblems: string[] = [];

run("an author's Tests page", () => {
  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin } });
    await h.app.listen({ port, host: '127.0.0.1' });
    author = await signedIn(h, 'author', h.a.institutionId, 'Ada Author');
    const published = (await portalJson(h, author, 'POST', '/portal/authoring/tests', { content: { ...AUTO_TEST, title: 'Fractions quiz' } })).json();
    expect((await portalJson(h, author, 'POST', `/portal/authoring/tests/${published.testId}/versions`, { revision: 1 })).statusCode).toBe(201);
    expect((await portalJson(h, author, 'POST', '/portal/authoring/tests', { content: { title: 'Geometry, in progress' } })).statusCode).toBe(201);
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('is reached from the navigation and lists the published test and the draft, at both widths', async () => {
    for (const size of ['desktop', 'phone'] as const) {
      const context = await browser.newContext({ viewport: VIEWPORTS[size] });
      await signInPortal(h.pool, h.clock.now(), context, author);
      const page = await context.newPage();
      await page.goto(`${origin}/portal`);
      if (size === 'phone') {
        await page.getByRole('button', { name: 'Menu' }).click();
      }
      await page.getByRole('link', { name: 'Tests', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Tests' }).waitFor();
      const table = page.getByRole('table', { name: "Your institution's tests, newest first" });
      expect(await table.innerText()).toContain('Fractions quiz');
      expect(await table.innerText()).toContain('Geometry, in progress');
      expect(await table.innerText()).toContain('Not yet');
      expect(await table.innerText()).toContain('Version 1');
      await checkPortalPage(page, 'author-tests', size, axeProblems);
      await closeContext(context);
    }
    expect(axeProblems).toEqual([]);
  });
});
