import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createHarness, type Harness } from '../helpers/harness.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { createPublishedTest, readAssignment } from '../helpers/student.js';
import { sectionedTest } from '../helpers/sectioned.js';
import { submittedSectioned } from '../helpers/sectioned-attempt.js';
import { freePort, hasBrowser, launchBrowser, requireBrowser, VIEWPORTS, closeContext } from './browser-env.js';
import { checkPortalPage, signInPortal } from './portal-check.js';

/**
 * The portal's review of a sectioned, pooled test in Chromium: the marking
 * page and the assignment page group the drawn questions under their
 * sections, show matching, ordering and fill_blanks answers in words, and
 * the assignment page lists the score per section. A reviewer marks the
 * essay by keyboard. axe finds nothing serious at 1280 and 360 px, and
 * nothing is wider than the viewport. Screenshots go to docs/screenshots/
 * with ASSAY_WRITE_SCREENSHOTS=1.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

let h: Harness;
let browser: Browser;
let origin: string;
let reviewer: PortalUser;
let viewer: PortalUser;
let assignmentId: string;
const axeProblems: string[] = [];

const as = (context: BrowserContext, user: PortalUser) => signInPortal(h.pool, h.clock.now(), context, user);
const check = (page: Page, name: string, size: keyof typeof VIEWPORTS) => checkPortalPage(page, name, size, axeProblems);

run('reviewing a sectioned test with the new question types in the portal', () => {
  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin } });
    await h.app.listen({ port, host: '127.0.0.1' });
    const testId = await createPublishedTest(h, h.a, sectionedTest());
    ({ assignmentId } = await submittedSectioned(h, h.a, testId, 'stu-4410'));
    reviewer = await signedIn(h, 'reviewer', h.a.institutionId, 'Rae Reviewer');
    viewer = await signedIn(h, 'viewer', h.a.institutionId, 'Val Viewer');
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('a reviewer reads the answers in words under each section and marks the essay by keyboard', async () => {
    const phone = await browser.newContext({ viewport: VIEWPORTS.phone });
    await as(phone, reviewer);
    const p = await phone.newPage();
    await p.goto(`${origin}/portal/marking/${assignmentId}`);
    await check(p, 'marking-sections', 'phone');
    await closeContext(phone);

    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    await as(context, reviewer);
    const page = await context.newPage();
    await page.goto(`${origin}/portal/marking/${assignmentId}`);
    for (const name of ['Pool', 'Skills', 'Writing']) await page.getByRole('heading', { level: 2, name, exact: true }).waitFor();
    // The ordering answer is a numbered list a screen reader announces item by item.
    const order = page.locator('ol.answer-order li');
    expect(await order.allInnerTexts()).toEqual(['Mercury in its correct place', 'Venus in its correct place', 'Mars not in place (belongs at 4)', 'Earth not in place (belongs at 3)']);
    await expect(page.getByText('Bern → matched to France wrong (correct: Switzerland)').isVisible()).resolves.toBe(true);
    await check(page, 'marking-sections', 'desktop');

    // Keyboard only: Tab to the essay's points, type, Tab to Finish marking, Enter.
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.getAttribute('name'))) === 'points-essay') break;
    }
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('points-essay');
    await page.keyboard.type('4');
    for (let i = 0; i < 10; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.textContent?.trim())) === 'Finish marking') break;
    }
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => !u.pathname.endsWith(`/portal/marking/${assignmentId}`) || u.search.length > 0);
    await closeContext(context);
    expect((await readAssignment(h, h.a, assignmentId)).result.score).toMatchObject({ points: 11, gradingStatus: 'final' });
  });

  it('the assignment page lists the score per section and the answers in words, at desktop and phone width', async () => {
    for (const size of ['desktop', 'phone'] as const) {
      const context = await browser.newContext({ viewport: VIEWPORTS[size] });
      await as(context, viewer);
      const page = await context.newPage();
      await page.goto(`${origin}/portal/assignments/${assignmentId}`);
      for (const name of ['Pool', 'Skills', 'Writing']) await page.getByRole('heading', { level: 3, name, exact: true }).waitFor();
      expect(await page.locator('.section-scores li').allInnerTexts()).toEqual([
        'Pool: 2 of 4 points (50%)',
        'Skills: 5 of 9 points (55.56%)',
        'Writing: 4 of 5 points (80%)',
      ]);
      await expect(page.getByText('Water boils at 100 (Blank 1, right) degrees at low (Blank 2, wrong; correct: standard) pressure.').isVisible()).resolves.toBe(true);
      await check(page, 'assignment-sections', size);
      await closeContext(context);
    }
    expect(axeProblems).toEqual([]);
  });
});
