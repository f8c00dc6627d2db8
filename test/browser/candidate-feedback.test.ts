import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { Student, assign, createPublishedTest, pathOf, readAssignment } from '../helpers/student.js';
import { SHOTS, VIEWPORTS, closeContext, freePort, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations } from './browser-env.js';
import { checkPortalPage, signInPortal } from './portal-check.js';

/**
 * Feedback for the candidate in Chromium: a reviewer writes it on the
 * marking page and finishes marking; the candidate then reads it on the
 * completion page (reopening their link) and in their report. Each page at
 * 1280 and 360 px: no serious axe violation, nothing wider than the screen.
 * Screenshots: docs/screenshots with ASSAY_WRITE_SCREENSHOTS=1.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

const TEST: TestInput = {
  title: 'Short Essay',
  description: 'Two written answers, marked by a reviewer.',
  durationMinutes: 30,
  proctoring: 'none',
  marking: 'manual',
  resultVisibility: 'after_review',
  passPercent: 50,
  questions: [
    { id: 'q1', type: 'essay', prompt: 'Name one cause of the French Revolution.', points: 4 },
    { id: 'q2', type: 'essay', prompt: 'Explain how the Estates-General led to the National Assembly.', points: 6 },
  ],
};
const OVERALL = 'A clear, well-organised answer.\n\nNext time, support each claim with a date or a source.';
const ON_Q2 = 'You describe the Tennis Court Oath well; say why the Third Estate broke away.';

let h: Harness;
let browser: Browser;
let origin: string;
let reviewer: PortalUser;
let startUrl: string;
let assignmentId: string;
const axeProblems: string[] = [];

async function candidatePage(page: Page, name: string, size: keyof typeof VIEWPORTS) {
  await page.setViewportSize(VIEWPORTS[size]);
  for (const v of await seriousAxeViolations(page)) axeProblems.push(`${name} ${size}: ${v.id} (${v.impact}) ${v.help}`);
  expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} at ${size}`).toBeLessThanOrEqual(VIEWPORTS[size].width);
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: VIEWPORTS[size].width, height: Math.min(height, 6000) });
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}-${size}.png`) });
}

run('feedback for the candidate in the browser', () => {
  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin } });
    await h.app.listen({ port, host: '127.0.0.1' });
    const testId = await createPublishedTest(h, h.a, TEST);
    const a = await assign(h, h.a, { testId, externalUserId: 'stu-5120', user: { email: 'lea@example.org', name: 'Léa Martin' } });
    startUrl = a.startUrl;
    assignmentId = a.assignmentId;
    const s = new Student(h);
    await s.start(a.startUrl);
    await s.page(a.assignmentId);
    await s.save(a.assignmentId, [
      { questionId: 'q1', value: 'The state was bankrupt after costly wars.', version: 1 },
      { questionId: 'q2', value: 'The Third Estate met apart and swore the Tennis Court Oath.', version: 1 },
    ]);
    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
    reviewer = await signedIn(h, 'reviewer', h.a.institutionId, 'Rae Reviewer');
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('a reviewer writes feedback on the marking page; the candidate reads it on the completion page and in the report once marking is finished', async () => {
    const staff = await browser.newContext({ viewport: VIEWPORTS.desktop });
    await signInPortal(h.pool, h.clock.now(), staff, reviewer);
    const page = await staff.newPage();
    await page.goto(`${origin}/portal/marking/${assignmentId}`);
    await page.getByLabel('Points for “Name one cause of the French Revolution.”').fill('4');
    await page.getByLabel('Points for “Explain how the Estates-General led to the National Assembly.”').fill('4.5');
    await page.getByLabel('Feedback for the candidate on “Explain how the Estates-General led to the National Assembly.”').fill(ON_Q2);
    await page.getByLabel('Overall feedback').fill(OVERALL);
    await checkPortalPage(page, 'marking-feedback', 'desktop', axeProblems);
    await page.setViewportSize(VIEWPORTS.phone);
    await checkPortalPage(page, 'marking-feedback', 'phone', axeProblems);

    // Before marking finishes, the candidate sees no feedback.
    const candidate = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const mine = await candidate.newPage();
    await mine.goto(`${origin}${pathOf(startUrl)}`);
    await mine.getByRole('heading', { level: 1, name: 'Marking in progress' }).waitFor();
    expect(await mine.getByText('Feedback from your reviewer').count()).toBe(0);

    await page.getByRole('button', { name: 'Finish marking' }).click();
    await page.getByText('Marking finished.').waitFor();
    await closeContext(staff);

    await mine.reload();
    await mine.getByRole('heading', { level: 1, name: 'Your result' }).waitFor();
    const feedback = mine.getByRole('region', { name: 'Feedback from your reviewer' });
    await expect(feedback.getByRole('heading', { level: 3, name: 'Overall' }).isVisible()).resolves.toBe(true);
    await expect(feedback.getByText('Next time, support each claim with a date or a source.').isVisible()).resolves.toBe(true);
    await expect(feedback.getByRole('heading', { level: 3, name: 'Question 2' }).isVisible()).resolves.toBe(true);
    await expect(feedback.getByText(ON_Q2).isVisible()).resolves.toBe(true);
    await candidatePage(mine, 'completion-feedback', 'desktop');
    await candidatePage(mine, 'completion-feedback', 'phone');

    const { result } = await readAssignment(h, h.a, assignmentId);
    await mine.goto(result.reportUrl);
    const section = mine.getByRole('region', { name: 'Feedback from the reviewer' });
    await expect(section.getByText(ON_Q2).isVisible()).resolves.toBe(true);
    await expect(section.getByText('A clear, well-organised answer.').isVisible()).resolves.toBe(true);
    await candidatePage(mine, 'report-feedback', 'desktop');
    await candidatePage(mine, 'report-feedback', 'phone');
    await closeContext(candidate);
    expect(axeProblems).toEqual([]);
  }, 90_000);
});
