import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createAsset } from '../../src/modules/catalog/content-assets/assets-service.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { portalJson } from '../helpers/authoring.js';
import { freePort, hasBrowser, launchBrowser, requireBrowser, VIEWPORTS } from './browser-env.js';
import { checkPortalPage, signInPortal } from './portal-check.js';

/**
 * The editor's draft preview in Chromium, at 1280
 * and 360 px: the formula is MathML, the image loads (from the staff path)
 * with its alt text, a question that cannot render is a placeholder, axe
 * finds nothing serious and nothing is wider than the viewport.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

let h: Harness;
let browser: Browser;
let origin: string;
let author: PortalUser;
let testId: string;
const axeProblems: string[] = [];
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

run('the draft preview', () => {
  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin } });
    await h.app.listen({ port, host: '127.0.0.1' });
    author = await signedIn(h, 'author', h.a.institutionId, 'Ada Author');
    const { assetId } = await createAsset(h.ctx, { contentType: 'image/png', body: PNG, ownerInstitutionId: h.a.institutionId });
    const created = await portalJson(h, author, 'POST', '/portal/authoring/tests', {
      content: {
        title: 'Circles, in progress',
        description: 'Area and circumference.',
        durationMinutes: 30,
        proctoring: 'none',
        marking: 'auto',
        resultVisibility: 'immediate',
        contentFormat: 'markdown',
        sections: [
          {
            title: 'Area',
            questions: [
              { type: 'numeric', prompt: 'The area of a circle is $$A = \\pi r^2$$ What is $A$ for $r = 1$, to two decimals?', points: 1, answer: 3.14, tolerance: 0.01 },
              { type: 'single_choice', prompt: `Which shape is shown? ![A circle of radius r](asset:${assetId})`, points: 1, options: [{ id: 'a', text: 'A circle' }, { id: 'b', text: 'A square' }], correctOptionId: 'a' },
            ],
          },
          { title: 'Circumference', questions: [{ type: 'single_choice', prompt: 'Options still to write', points: 1 }] },
        ],
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    testId = created.json().testId;
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('shows the formula as MathML, the image with its alt text and the unfinished question as a placeholder, at both widths', async () => {
    for (const size of ['desktop', 'phone'] as const) {
      const context = await browser.newContext({ viewport: VIEWPORTS[size] });
      await signInPortal(h.pool, h.clock.now(), context, author);
      const page = await context.newPage();
      // The preview's CSP sandbox (tested over HTTP in test/portal/draft-preview-try.test.ts) lets no
      // script run, axe's included: the check loads the same bytes without that header.
      await page.route('**/draft/preview*', async (route) => {
        const res = await route.fetch();
        const headers = { ...res.headers() };
        expect(headers['content-security-policy']).toContain('sandbox');
        delete headers['content-security-policy'];
        await route.fulfill({ response: res, headers });
      });
      await page.goto(`${origin}/portal/tests/${testId}/draft/preview?revision=1`);
      await page.getByRole('heading', { level: 1, name: 'Circles, in progress' }).waitFor({ timeout: 5000 });
      expect(await page.locator('math').count()).toBeGreaterThanOrEqual(3);
      const img = page.getByRole('img', { name: 'A circle of radius r' });
      expect(await img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth > 0)).toBe(true);
      expect(await page.getByText('Question 3 cannot be previewed yet:').count()).toBe(1);
      await checkPortalPage(page, 'draft-preview', size, axeProblems);
      await context.close();
    }
    expect(axeProblems).toEqual([]);
  });
  it('Try it on an unfinished draft explains why in words, at both widths', async () => {
    for (const size of ['desktop', 'phone'] as const) {
      const context = await browser.newContext({ viewport: VIEWPORTS[size] });
      await signInPortal(h.pool, h.clock.now(), context, author);
      const page = await context.newPage();
      await page.goto(`${origin}/portal/tests`);
      // The editor's Try it form, as that page sends it (same origin, the session's token).
      const csrf = await page.evaluate(() => (document.querySelector('input[name="csrf"]') as HTMLInputElement | null)?.value ?? null);
      expect(csrf).not.toBeNull();
      await Promise.all([
        page.waitForURL(`${origin}/portal/tests/${testId}/try`),
        page.evaluate(
          ({ action, token }) => {
            const form = document.createElement('form');
            form.method = 'post';
            form.action = action;
            const input = document.createElement('input');
            input.name = 'csrf';
            input.value = token;
            form.append(input);
            document.body.append(form);
            form.submit();
          },
          { action: `/portal/tests/${testId}/try`, token: csrf! },
        ),
      ]);
      await page.getByRole('heading', { level: 1, name: 'Try it' }).waitFor({ timeout: 5000 });
      expect(await page.getByRole('alert').innerText()).toContain('cannot be tried yet');
      expect(await page.locator('ul.problems').innerText()).toContain('Section 2, question 1: options is required');
      await checkPortalPage(page, 'try-refused', size, axeProblems);
      await context.close();
    }
    expect(axeProblems).toEqual([]);
  });
});
