import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { assign, createPublishedTest, readAssignment } from '../helpers/student.js';
import { SHOTS, VIEWPORTS, freePort, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations, closeContext, tabTo } from './browser-env.js';

/**
 * A composite question in Chromium, answered with the keyboard alone: its
 * parts are groups named Part 1…4 after the prompt, every control has a
 * name, the nested answer is autosaved and comes back on a reload, the page
 * has no sideways scroll at 1280 and 360 px, and the submission is marked
 * as the sum of the parts.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;
const EXAMPLE = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/examples/tests/composite.json'), 'utf8')) as TestInput;
const SPEEDS = ['rest', 'half', 'ground'];

run('a composite question in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  let tenant: Tenant;
  let testId: string;
  beforeAll(async () => {
    const port = await freePort();
    h = await createHarness({ config: { publicBaseUrl: `http://127.0.0.1:${port}`, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    tenant = await h.createTenant('Northfield University', ['localhost']);
    testId = await createPublishedTest(h, tenant, EXAMPLE);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const part = (n: number) => `fieldset.part#q1-p${n}`;
  const storedAnswers = async (assignmentId: string): Promise<Record<string, unknown>> =>
    Object.fromEntries(((await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}`)).json().items as Array<{ questionId: string; answer: unknown }>).map((i) => [i.questionId, i.answer]));
  const shownOrder = (page: Page) => page.locator(`${part(4)} li`).evaluateAll((lis) => lis.map((li) => (li as HTMLElement).dataset.itemId));
  async function checkLayout(page: Page, size: keyof typeof VIEWPORTS): Promise<void> {
    expect(await seriousAxeViolations(page), size).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), size).toBeLessThanOrEqual(VIEWPORTS[size].width);
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.locator('fieldset[data-question-id="ball"]').screenshot({ path: path.join(SHOTS, `question-composite-${size}.png`) });
  }

  it('answers every part by keyboard, keeps the answer over a reload and marks the sum of the parts', async () => {
    const a = await assign(h, tenant, { testId, externalUserId: 'composite-kbd' });
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(a.startUrl);
    await tabTo(page, '#begin-button');
    await page.keyboard.press('Enter');
    await page.getByRole('timer').waitFor();

    // The parts are groups named Part 1…4 inside the question, after its prompt, each described by its own prompt.
    const question = page.getByRole('group', { name: /^Question 1 A ball is dropped/ });
    for (let n = 1; n <= 4; n++) await expect.poll(() => question.getByRole('group', { name: new RegExp(`^Part ${n} \\(`) }).count()).toBe(1);
    expect(await page.locator(part(2)).getAttribute('aria-describedby')).toBe('q1-p2-prompt');
    expect(await page.locator('#q1-p2-prompt').textContent()).toBe('Which energy store empties as the ball falls?');
    await expect.poll(() => page.getByRole('textbox', { name: 'Your answer to question 1, part 1' }).count()).toBe(1);
    expect(await shownOrder(page)).not.toEqual(SPEEDS);

    await tabTo(page, '#q1-p1-input');
    await page.keyboard.type('2');
    await tabTo(page, `${part(2)} input[type=radio]`);
    for (let i = 0; i < 5 && (await page.evaluate(() => (document.activeElement as HTMLInputElement).value)) !== 'gpe'; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Space');
    await tabTo(page, '#q1-p3-input');
    await page.keyboard.type('joule');
    for (let pos = 0; pos < SPEEDS.length; pos++) {
      const from = (await shownOrder(page)).indexOf(SPEEDS[pos]!);
      if (from === pos) continue;
      await tabTo(page, `${part(4)} li[data-item-id="${SPEEDS[pos]}"] [data-move=up]`);
      for (let k = from; k > pos; k--) await page.keyboard.press('Enter');
      // The move is announced in the part's own live region.
      const text = await page.locator(`${part(4)} li[data-item-id="${SPEEDS[pos]}"] .order-text`).textContent();
      expect(await page.locator(`${part(4)} .order-live`).textContent()).toBe(`${text} moved to position ${pos + 1} of 3`);
    }
    await tabTo(page, 'fieldset[data-question-id="drag"] input[value=yes]');
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');

    const answer = { time: '2', energy: 'gpe', unit: 'joule', order: SPEEDS };
    await expect.poll(() => storedAnswers(a.assignmentId), { timeout: 15_000 }).toEqual({ ball: answer, drag: 'yes' });
    expect(await page.locator('#answered-count').textContent()).toBe('2 of 2 answered');
    await checkLayout(page, 'desktop');

    await page.reload();
    expect(await page.locator('#q1-p1-input').inputValue()).toBe('2');
    expect(await page.locator(`${part(2)} input[value=gpe]`).isChecked()).toBe(true);
    expect(await page.locator('#q1-p3-input').inputValue()).toBe('joule');
    expect(await shownOrder(page)).toEqual(SPEEDS);

    const phone = await browser.newContext({ viewport: VIEWPORTS.phone });
    const small = await phone.newPage();
    await small.goto(a.startUrl);
    await small.getByRole('timer').waitFor();
    await checkLayout(small, 'phone');
    await closeContext(phone);

    await tabTo(page, '#open-submit');
    await page.keyboard.press('Enter');
    await tabTo(page, '#confirm-submit');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await readAssignment(h, tenant, a.assignmentId)).result?.score ?? null, { timeout: 15_000 }).toMatchObject({ points: 7, maxPoints: 7 });
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 240_000);
});
