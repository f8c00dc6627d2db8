import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { Student, assign, createPublishedTest, readAssignment } from '../helpers/student.js';
import { freePort, hasBrowser, launchBrowser, requireBrowser, SHOTS, VIEWPORTS, closeContext } from './browser-env.js';
import { checkPortalPage, signInPortal } from './portal-check.js';

/**
 * Marking an essay per criterion in Chromium, by keyboard: a points field per
 * criterion, the total their sum (kept in step as the reviewer types), and
 * the criterion marks on the assignment page afterwards. And the portal's
 * navigation at 360 px: one row (a Menu button that opens the links), at
 * 1280 px the links themselves. Pages checked with axe and for width; the
 * screenshots go to docs/screenshots/ with ASSAY_WRITE_SCREENSHOTS=1.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

const CRITERIA_TEST: TestInput = {
  title: 'Persuasive Writing',
  description: 'One essay, marked against three criteria.',
  durationMinutes: 30,
  proctoring: 'none',
  marking: 'manual',
  resultVisibility: 'after_review',
  passPercent: 50,
  questions: [
    {
      id: 'es',
      type: 'essay',
      prompt: 'Should schools set homework? Argue your case in 150 words.',
      points: 10,
      criteria: [
        { criterion: 'Position', points: 2, description: 'States a clear position early' },
        { criterion: 'Evidence', points: 5, description: 'Supports each claim with an example or source' },
        { criterion: 'Organisation', points: 3, description: 'Paragraphs in a logical order, with a conclusion' },
      ],
    },
  ],
};
const ANSWER =
  'Schools should set some homework, but less of it. Spaced practice at home helps pupils remember what they learnt: a short quiz the evening after a lesson beats an hour of copying. Too much homework, though, crowds out sleep and play.';

let h: Harness;
let browser: Browser;
let origin: string;
let reviewer: PortalUser;
let essayId: string;
const axeProblems: string[] = [];

const as = (context: BrowserContext, user: PortalUser) => signInPortal(h.pool, h.clock.now(), context, user);

const check = (page: Page, name: string, size: keyof typeof VIEWPORTS) => checkPortalPage(page, name, size, axeProblems);

const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    return { tag: el.tagName, text: (el.textContent ?? '').trim(), name: el.getAttribute('name'), expanded: el.getAttribute('aria-expanded') };
  });

async function tabTo(page: Page, match: (f: Awaited<ReturnType<typeof focused>>) => boolean, limit = 60) {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if (match(await focused(page))) return;
  }
  throw new Error('never reached the element with Tab');
}

run('marking per criterion and the compact navigation in the portal', () => {
  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin } });
    await h.app.listen({ port, host: '127.0.0.1' });
    const testId = await createPublishedTest(h, h.a, CRITERIA_TEST);
    const a = await assign(h, h.a, { testId, externalUserId: 'stu-2231', user: { email: 'mia@example.org', name: 'Mia Kowalski' } });
    const s = new Student(h);
    await s.start(a.startUrl);
    await s.page(a.assignmentId);
    expect((await s.save(a.assignmentId, [{ questionId: 'es', value: ANSWER, version: 1 }])).statusCode).toBe(200);
    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
    essayId = a.assignmentId;
    reviewer = await signedIn(h, 'reviewer', h.a.institutionId, 'Rae Reviewer');
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('a reviewer marks each criterion by keyboard; the total is their sum; the criterion marks show on the assignment page', async () => {
    // The phone first, for its screenshot of the filled form; then the keyboard flow at desktop width finishes.
    const phone = await browser.newContext({ viewport: VIEWPORTS.phone });
    await as(phone, reviewer);
    const p = await phone.newPage();
    await p.goto(`${origin}/portal/marking/${essayId}`);
    await p.getByLabel('Position points for “Should schools set homework? Argue your case in 150 words.”').fill('2');
    await p.getByLabel(/^Evidence points/).fill('3.5');
    await p.getByLabel(/^Comment on Evidence/).fill('One example; the claim about sleep needs a source.');
    await p.getByLabel(/^Organisation points/).fill('2');
    expect(await p.locator('output#total-es').textContent()).toBe('7.5');
    await check(p, 'marking-criteria', 'phone');
    await closeContext(phone);

    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    await as(context, reviewer);
    const page = await context.newPage();
    await page.goto(`${origin}/portal/marking/${essayId}`);
    await page.getByRole('heading', { level: 1, name: /Mia Kowalski \(stu-2231\)/ }).waitFor();
    // No points box for the question itself: only the criteria's.
    expect(await page.locator('input[name="points-es"]').count()).toBe(0);
    const total = page.locator('output#total-es');
    expect(await total.textContent()).toBe('–');

    await tabTo(page, (f) => f.name === 'criterion-es-0');
    await page.keyboard.type('2');
    await tabTo(page, (f) => f.name === 'criterion-comment-es-0');
    await page.keyboard.type('Clear from the first sentence.');
    await tabTo(page, (f) => f.name === 'criterion-es-1');
    await page.keyboard.type('3.5');
    await tabTo(page, (f) => f.name === 'criterion-comment-es-1');
    await page.keyboard.type('One example; the claim about sleep needs a source.');
    await tabTo(page, (f) => f.name === 'criterion-es-2');
    expect(await total.textContent()).toBe('–');
    await page.keyboard.type('2');
    expect(await total.textContent()).toBe('7.5');
    await check(page, 'marking-criteria', 'desktop');
    await page.locator('#f-criterion-es-2').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('9');
    expect(await total.textContent()).toBe('14.5');
    // Over the criterion's maximum: the browser's own check aside (the form is novalidate), the server refuses it beside the field.
    await tabTo(page, (f) => f.tag === 'BUTTON' && f.text === 'Finish marking');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'There is a problem' }).waitFor();
    await expect(page.getByText('The points for “Organisation” of “Should schools set homework? Argue your case in 150 words.” must be between 0 and 3').first().isVisible()).resolves.toBe(true);
    expect(await page.locator('#f-criterion-es-2').getAttribute('aria-invalid')).toBe('true');
    expect(await readAssignment(h, h.a, essayId).then((r) => r.status)).toBe('marking');

    await page.locator('#f-criterion-es-2').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('2');
    expect(await total.textContent()).toBe('7.5');
    await tabTo(page, (f) => f.tag === 'BUTTON' && f.text === 'Finish marking');
    await page.keyboard.press('Enter');
    await page.getByText('Marking finished.').waitFor();

    const read = await readAssignment(h, h.a, essayId);
    expect(read.status).toBe('completed');
    expect(read.result.score).toMatchObject({ points: 7.5, maxPoints: 10, gradingStatus: 'final' });

    await page.goto(`${origin}/portal/assignments/${essayId}`);
    const table = page.getByRole('table', { name: /Marks per criterion/ });
    await table.waitFor();
    const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c.textContent ?? '').trim())));
    expect(rows).toEqual([
      ['Position', '2 of 2', 'Clear from the first sentence.'],
      ['Evidence', '3.5 of 5', 'One example; the claim about sleep needs a source.'],
      ['Organisation', '2 of 3', '–'],
    ]);
    await expect(page.getByText('7.5 of 10 points', { exact: false }).first().isVisible()).resolves.toBe(true);
    await check(page, 'assignment-criteria', 'desktop');
    await page.setViewportSize(VIEWPORTS.phone);
    await check(page, 'assignment-criteria', 'phone');
    await closeContext(context);
  }, 90_000);

  it('at 360 px the navigation is one row: a Menu button that opens the links by keyboard; at 1280 px the links, no button', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.phone });
    await as(context, reviewer);
    const page = await context.newPage();
    await page.goto(`${origin}/portal/marking`);
    const nav = page.getByRole('navigation', { name: 'Main' });
    const menu = nav.getByRole('button', { name: /^Menu/ });
    await menu.waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await menu.getAttribute('aria-controls')).toBe('main-nav-list');
    expect((await nav.boundingBox())!.height).toBeLessThan(56);
    expect(await nav.getByRole('link', { name: 'Assignments' }).isVisible()).toBe(false);
    await check(page, 'nav-compact', 'phone');

    // By keyboard: skip link, then the account link and sign-out, then the Menu button.
    await tabTo(page, (f) => f.tag === 'BUTTON' && f.text.startsWith('Menu'));
    await page.keyboard.press('Enter');
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect(await nav.getByRole('link', { name: 'Assignments' }).isVisible()).toBe(true);
    expect(await nav.getByRole('link', { name: 'Marking' }).getAttribute('aria-current')).toBe('page');
    await tabTo(page, (f) => f.tag === 'A' && f.text === 'Assignments', 5);
    await check(page, 'nav-open', 'phone');
    await page.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect((await focused(page)).text.startsWith('Menu')).toBe(true);
    await page.keyboard.press('Enter');
    await tabTo(page, (f) => f.tag === 'A' && f.text === 'Assignments', 5);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Assignments' }).waitFor();

    await page.setViewportSize(VIEWPORTS.desktop);
    await page.goto(`${origin}/portal/marking`);
    expect(await menu.isVisible()).toBe(false);
    expect(await nav.getByRole('link', { name: 'Assignments' }).isVisible()).toBe(true);
    expect((await nav.boundingBox())!.height).toBeLessThan(56);
    await check(page, 'nav-compact', 'desktop');
    await closeContext(context);

    // Without the script: no button, the links one row that scrolls sideways, each reachable.
    const noJs = await browser.newContext({ viewport: VIEWPORTS.phone, javaScriptEnabled: false });
    await as(noJs, reviewer);
    const plain = await noJs.newPage();
    await plain.goto(`${origin}/portal/marking`);
    const plainNav = plain.getByRole('navigation', { name: 'Main' });
    expect(await plainNav.getByRole('button', { name: /^Menu/ }).count()).toBe(0);
    expect((await plainNav.boundingBox())!.height).toBeLessThan(56);
    const list = plain.locator('#main-nav-list');
    expect(await list.evaluate((ul) => ul.scrollWidth > ul.clientWidth)).toBe(true);
    expect(await plain.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await closeContext(noJs);

    expect(axeProblems).toEqual([]);
  }, 60_000);
});
