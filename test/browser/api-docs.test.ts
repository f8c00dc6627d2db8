import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createHarness, type Harness } from '../helpers/harness.js';
import { freePort, hasBrowser, launchBrowser } from './browser-env.js';

/** The human API reference at /docs renders under its Content-Security-Policy without a single violation. */
describe.skipIf(!hasBrowser)('the API reference page in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin } });
    await h.app.listen({ port, host: '127.0.0.1' });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('shows the partner operations and logs no CSP violation', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`Content Security Policy violation: ${e.violatedDirective} ${e.blockedURI}`));
    });
    const res = await page.goto(`${origin}/docs`);
    expect(res?.status()).toBe(200);
    await page.getByText('/api/partner/v1/assignments/{assignmentId}').first().waitFor({ timeout: 20_000 });
    // Open one operation, which renders more of the UI (and more of its styles).
    await page.getByText('/api/partner/v1/assignments/{assignmentId}').first().click();
    await page.waitForTimeout(500);
    expect(violations).toEqual([]);
    await page.close();
  });
});
