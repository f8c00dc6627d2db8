import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { portalJson } from '../helpers/authoring.js';
import { assign, createPublishedTest, readAssignment } from '../helpers/student.js';
import { SHOTS, VIEWPORTS, freePort, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations, closeContext } from './browser-env.js';
import { checkPortalPage, signInPortal } from './portal-check.js';

/**
 * A parametrised numeric question in Chromium: the candidate sees their own
 * numbers (a Markdown test, so the rendered-text cache is in play), a
 * reload shows the same numbers, the right answer for those numbers earns
 * the full points, and the reviewer's assignment page shows the candidate's
 * own numbers and answer. The editor's Sample draws are asked for by
 * keyboard and listed. axe finds nothing serious; nothing is wider than the
 * viewport at 1280 and 360 px.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;
const TEST: TestInput = {
  title: 'Calculated forces',
  description: 'Each candidate gets their own numbers.',
  durationMinutes: 20,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  contentFormat: 'markdown',
  questions: [
    {
      id: 'force',
      type: 'numeric',
      prompt: 'What net force, in newtons, accelerates a **{m} kg** car at {a} m/s²?',
      points: 2,
      variables: [
        { name: 'm', min: 800, max: 2000, step: 50 },
        { name: 'a', min: 0.5, max: 4, step: 0.5 },
      ],
      answerFormula: 'm * a',
    },
  ],
};

run('a parametrised question in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  let tenant: Tenant;
  let testId: string;
  let origin: string;
  let reviewer: PortalUser;
  let author: PortalUser;
  const axeProblems: string[] = [];
  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    tenant = await h.createTenant('Northfield University', ['localhost']);
    testId = await createPublishedTest(h, tenant, TEST);
    reviewer = await signedIn(h, 'reviewer', tenant.institutionId, 'Rae Reviewer');
    author = await signedIn(h, 'author', tenant.institutionId, 'Ada Author');
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const valuesOf = async (assignmentId: string): Promise<{ m: number; a: number }> =>
    (await h.pool.query('SELECT delivery FROM attempts WHERE assignment_id = $1', [assignmentId])).rows[0].delivery.values.force;
  const promptOf = (page: Page) => page.locator('fieldset[data-question-id="force"]').innerText();
  async function checkLayout(page: Page, size: keyof typeof VIEWPORTS): Promise<void> {
    expect(await seriousAxeViolations(page), size).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), size).toBeLessThanOrEqual(VIEWPORTS[size].width);
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.locator('fieldset[data-question-id="force"]').screenshot({ path: path.join(SHOTS, `question-parametrised-${size}.png`) });
  }

  it("shows each candidate their own numbers, keeps them on reload, marks the answer for them full, and the reviewer sees them", async () => {
    // A first candidate fills the rendered-text cache with their numbers; the second must still see their own.
    const first = await assign(h, tenant, { testId, externalUserId: 'param-first' });
    const other = await browser.newContext({ viewport: VIEWPORTS.desktop });
    other.setDefaultTimeout(20_000);
    const otherPage = await other.newPage();
    await otherPage.goto(first.startUrl);
    await otherPage.locator('#begin-button').click();
    await otherPage.getByRole('timer').waitFor();
    await closeContext(other);

    const a = await assign(h, tenant, { testId, externalUserId: 'param-kbd' });
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    context.setDefaultTimeout(20_000);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(a.startUrl);
    await page.locator('#begin-button').focus();
    await page.keyboard.press('Enter');
    await page.getByRole('timer').waitFor();

    const { m, a: acc } = await valuesOf(a.assignmentId);
    const mine = `What net force, in newtons, accelerates a ${m} kg car at ${acc} m/s²?`;
    expect(await promptOf(page)).toContain(mine);
    expect(await page.locator('fieldset[data-question-id="force"] strong').innerText()).toBe(`${m} kg`);
    expect(await promptOf(page)).not.toContain('{m}');
    const firstValues = await valuesOf(first.assignmentId);
    if (firstValues.m !== m || firstValues.a !== acc) expect(await promptOf(page)).not.toContain(`${firstValues.m} kg car at ${firstValues.a} m/s²`);

    const answer = String(m * acc);
    await page.getByRole('textbox', { name: 'Your answer to question 1' }).focus();
    await page.keyboard.type(answer);
    await page.keyboard.press('Tab');
    await expect.poll(async () => (await h.pool.query('SELECT value FROM answers WHERE assignment_id = $1', [a.assignmentId])).rows[0]?.value ?? null, { timeout: 15_000 }).toBe(answer);
    await checkLayout(page, 'desktop');

    await page.reload();
    expect(await promptOf(page)).toContain(mine);
    expect(await page.getByRole('textbox', { name: 'Your answer to question 1' }).inputValue()).toBe(answer);

    const phone = await browser.newContext({ viewport: VIEWPORTS.phone });
    const small = await phone.newPage();
    await small.goto(a.startUrl);
    await small.getByRole('timer').waitFor();
    expect(await promptOf(small)).toContain(mine);
    await checkLayout(small, 'phone');
    await closeContext(phone);

    await page.locator('#open-submit').focus();
    await page.keyboard.press('Enter');
    await page.locator('#confirm-submit').focus();
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await readAssignment(h, tenant, a.assignmentId)).result?.score ?? null, { timeout: 15_000 }).toMatchObject({ points: 2, maxPoints: 2 });
    expect(problems).toEqual([]);
    await closeContext(context);

    // The reviewer's assignment page: the candidate's own numbers and the answer expected for them.
    for (const size of ['desktop', 'phone'] as const) {
      const staff = await browser.newContext({ viewport: VIEWPORTS[size] });
      await signInPortal(h.pool, h.clock.now(), staff, reviewer);
      const review = await staff.newPage();
      await review.goto(`${origin}/portal/assignments/${a.assignmentId}`);
      const body = await review.locator('main').innerText();
      expect(body).toContain(mine);
      expect(body).toContain(`Expected: ${answer}`);
      expect(body).not.toContain('{m}');
      await checkPortalPage(review, 'assignment-parametrised', size, axeProblems);
      await closeContext(staff);
    }
    expect(axeProblems).toEqual([]);
  }, 240_000);

  it('lists three sample draws in the editor, asked for by keyboard', async () => {
    const created = await portalJson(h, author, 'POST', '/portal/authoring/tests', { content: TEST });
    expect(created.statusCode).toBe(201);
    const draft = created.json().testId as string;
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    await signInPortal(h.pool, h.clock.now(), context, author);
    const page = await context.newPage();
    await page.goto(`${origin}/portal/tests/${draft}/edit`);
    await page.getByRole('group', { name: 'Variables' }).waitFor();
    expect(await page.getByLabel('Variable 1 name').inputValue()).toBe('m');
    expect(await page.getByLabel('Variable 2 step').inputValue()).toBe('0.5');
    expect(await page.getByLabel('Answer formula').inputValue()).toBe('m * a');
    await page.getByRole('button', { name: 'Show sample draws' }).focus();
    await page.keyboard.press('Enter');
    const items = page.locator('.sample-draws li');
    await expect.poll(() => items.count(), { timeout: 10_000 }).toBe(3);
    for (const line of await items.allInnerTexts()) {
      const [, m, a, answer] = /^m = (\d+), a = ([\d.]+) → answer ([\d.]+)$/.exec(line) ?? [];
      expect(Number(answer), line).toBe(Number(m) * Number(a));
    }
    await checkPortalPage(page, 'editor-parametrised', 'desktop', axeProblems);
    expect(axeProblems).toEqual([]);
    await closeContext(context);
  }, 120_000);
});
