import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { testModeTenant } from '../helpers/test-mode.js';
import { ALL_TYPES_TEST, assign, createPublishedTest, readAssignment } from '../helpers/student.js';
import { freePort, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations, startCallbackSite, closeContext } from './browser-env.js';

const QUIZ: TestInput = {
  title: 'Quick Quiz',
  description: 'Four auto-marked questions; results at once.',
  durationMinutes: 20,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: 50,
  questions: [
    { id: 'sum', type: 'single_choice', prompt: 'What is 2 + 2?', points: 1, options: [{ id: 'three', text: 'Three' }, { id: 'four', text: 'Four' }], correctOptionId: 'four' },
    {
      id: 'primes',
      type: 'multiple_choice',
      prompt: 'Which are prime?',
      points: 2,
      options: [{ id: 'p2', text: 'Two' }, { id: 'p4', text: 'Nine' }, { id: 'p5', text: 'Five' }],
      correctOptionIds: ['p2', 'p5'],
      partialCredit: true,
    },
    { id: 'div', type: 'numeric', prompt: 'What is 10 / 4?', points: 1, answer: 2.5 },
    { id: 'city', type: 'short_text', prompt: 'Capital of Italy?', points: 1, acceptedAnswers: ['Rome'] },
  ],
};

describe.runIf(requireBrowser && !hasBrowser)('browser tests', () => {
  it('need Chromium when ASSAY_REQUIRE_BROWSER=1', () => {
    expect.fail('ASSAY_REQUIRE_BROWSER=1 but no Chromium was found (set ASSAY_CHROMIUM_PATH or apt-get install -y chromium)');
  });
});

describe.skipIf(!hasBrowser)('the student journey in a real browser', () => {
  // The server's clock is set by the test and then runs on in real time, as a server's does: the open page re-reads
  // the server time every 10 s (status poll), so a frozen clock would hold its countdown still.
  const clock = runningClock();
  let h: Harness;
  let browser: Browser;
  let callback: Awaited<ReturnType<typeof startCallbackSite>>;
  let tenant: Tenant;
  let origin: string;
  let hybridTestId: string;
  let quizTestId: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ clock, config: { publicBaseUrl: origin, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    callback = await startCallbackSite();
    tenant = await h.createTenant('Northfield University', ['localhost']);
    hybridTestId = await createPublishedTest(h, tenant, ALL_TYPES_TEST);
    quizTestId = await createPublishedTest(h, tenant, QUIZ);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await callback?.close();
    await h?.close();
  });

  async function newPage(viewport = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource|ERR_INTERNET_DISCONNECTED/.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    return { context, page, problems };
  }

  const callbackUrl = () => `${callback.origin}/callback?from=lms&note=a%20b`;
  const group = (page: Page, prompt: string) => page.getByRole('group', { name: new RegExp(prompt.replace(/[?+()]/g, '\\$&')) });
  const saveStatus = (page: Page) => page.locator('#save-status');

  it('has an accessibility check that does find violations (so a clean result means something)', async () => {
    const { context, page } = await newPage();
    await page.setContent('<!doctype html><html><body><img src="a.png"><input type="text"></body></html>');
    expect((await seriousAxeViolations(page)).map((v) => v.id)).toEqual(expect.arrayContaining(['image-alt', 'label']));
    await closeContext(context);
  });

  it('shows the Test mode notice on a test-mode assignment, first in the banner landmark: intro and test page axe clean, at desktop and 360 px', async () => {
    const sandbox = await testModeTenant(h, tenant);
    const a = await assign(h, sandbox, { testId: quizTestId, externalUserId: 'sandbox-1', callbackUrl: callbackUrl() });
    for (const viewport of [{ width: 1280, height: 900 }, { width: 360, height: 760 }]) {
      const { context, page, problems } = await newPage(viewport);
      await page.goto(a.startUrl);
      const banner = page.getByRole('banner');
      await expect.poll(() => banner.locator('.test-mode-banner').textContent()).toBe(
        'Test mode: This attempt is a sandbox run by Northfield University’s developers; nothing here counts.',
      );
      expect(await page.title()).toBe('Test mode: Quick Quiz – Northfield University');
      // Visible and not cut off at either width.
      const box = (await banner.locator('.test-mode-banner p').boundingBox())!;
      expect(box.width).toBeLessThanOrEqual(viewport.width);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      expect(await seriousAxeViolations(page)).toEqual([]);
      if (viewport.width > 360) {
        // Desktop sees the intro page; begin, so the phone sees the test page, whose sticky bar keeps the mode in view.
        await page.getByRole('button', { name: 'Begin test' }).click();
        await page.getByRole('timer').waitFor();
        expect(await seriousAxeViolations(page)).toEqual([]);
      }
      if (viewport.width === 360) expect(await page.locator('.status-bar .status-test-mode').isVisible()).toBe(true);
      expect(problems).toEqual([]);
      await closeContext(context);
    }
  });

  it('takes an after_review test end to end: begin, every question type, reload, offline, submit, return, reopen', async () => {
    const a = await assign(h, tenant, { testId: hybridTestId, externalUserId: 'stu 7&8', callbackUrl: callbackUrl() });
    const { context, page, problems } = await newPage();

    await page.goto(a.startUrl);
    expect(page.url()).toBe(`${origin}/a/${a.assignmentId}`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Every Question Type');
    await expect.poll(() => page.getByText('5', { exact: true }).count()).toBeGreaterThan(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect((await readAssignment(h, tenant, a.assignmentId)).status).toBe('assigned');

    await page.getByRole('button', { name: 'Begin test' }).click();
    await page.getByRole('timer').waitFor();
    expect((await readAssignment(h, tenant, a.assignmentId)).status).toBe('started');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await group(page, 'Capital of France?').getByLabel('Paris').check();
    await group(page, 'Pick the even numbers').getByLabel('2', { exact: true }).check();
    await group(page, 'Pick the even numbers').getByLabel('4', { exact: true }).check();
    await group(page, 'Opposite of').getByRole('textbox').fill('hot');
    await group(page, 'Pi to two decimals?').getByRole('textbox').fill('3,14');
    // The essay is the last edit. The page sends it after a 1.2 s pause in typing, or at once if a save of the
    // earlier answers (sent when their fields lost focus) is still in flight when it is typed: that save's
    // follow-up carries it. Which happens, and how long it takes, depends on how fast the server answers, so
    // polling the status for expect.poll's default second passed only when the follow-up carried it within
    // that second. Wait for the request that carries the essay, then for the status it leads to.
    const essaySaved = page.waitForResponse((r) => r.url().endsWith('/answers') && r.request().postData()?.includes('I woke up early and ran.') === true);
    await group(page, 'Describe your morning.').getByRole('textbox').fill('I woke up early and ran.');
    expect(await page.locator('#q5-words').textContent()).toBe('6 words of at most 50');
    expect(await page.locator('#answered-count').textContent()).toBe('5 of 5 answered');
    expect((await essaySaved).ok()).toBe(true);
    await expect.poll(() => saveStatus(page).textContent()).toBe('Saved');

    await page.reload();
    expect(await group(page, 'Capital of France?').getByLabel('Paris').isChecked()).toBe(true);
    expect(await group(page, 'Pick the even numbers').getByLabel('4', { exact: true }).isChecked()).toBe(true);
    expect(await group(page, 'Pick the even numbers').getByLabel('3', { exact: true }).isChecked()).toBe(false);
    expect(await group(page, 'Opposite of').getByRole('textbox').inputValue()).toBe('hot');
    expect(await group(page, 'Pi to two decimals?').getByRole('textbox').inputValue()).toBe('3,14');
    expect(await group(page, 'Describe your morning.').getByRole('textbox').inputValue()).toBe('I woke up early and ran.');

    // Cut the network while answering: the page says so, keeps the answer, and saves it once back online.
    await context.setOffline(true);
    await group(page, 'Describe your morning.').getByRole('textbox').fill('Offline edit: tea, toast, a walk.');
    await group(page, 'Opposite of').getByRole('textbox').fill('');
    await expect.poll(() => saveStatus(page).textContent(), { timeout: 10_000 }).toBe('Offline — will retry');
    // Screen readers hear the connection change through the live region, and hear it end.
    const liveRegion = page.getByRole('status').and(page.locator('#connection-status'));
    expect(await liveRegion.textContent()).toBe('You are offline. Your answers are kept and will be saved when the connection returns.');
    const marking = async () => (await h.admin('GET', `/api/admin/v1/assignments/${a.assignmentId}`)).json();
    expect((await marking()).items[4].answer).toBe('I woke up early and ran.');
    await context.setOffline(false);
    await expect.poll(() => saveStatus(page).textContent(), { timeout: 20_000 }).toBe('Saved');
    expect(await liveRegion.textContent()).toBe('Back online. All answers saved.');
    expect((await marking()).items.map((i: { answer: unknown }) => i.answer)).toEqual(['a', ['two', 'four'], null, '3,14', 'Offline edit: tea, toast, a walk.']);

    await page.getByRole('button', { name: 'Submit test' }).click();
    const dialog = page.getByRole('dialog', { name: 'Submit your test?' });
    await dialog.waitFor();
    expect(await dialog.getByText('You have 1 unanswered question.').count()).toBe(1);
    await dialog.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('heading', { name: 'Marking in progress' }).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    const read = await readAssignment(h, tenant, a.assignmentId);
    expect(read.status).toBe('marking');
    // Auto marks: Paris 2, both even numbers 4, the cleared short answer 0, "3,14" 3; the essay waits for a reviewer.
    expect(read.result.score).toMatchObject({ points: 9, maxPoints: 20, gradingStatus: 'pending_review' });

    await page.getByRole('link', { name: 'Return to Northfield University' }).click();
    await page.getByRole('heading', { name: 'Back at the partner' }).waitFor();
    const back = new URL(page.url());
    expect(back.origin + back.pathname).toBe(`${callback.origin}/callback`);
    expect(Object.fromEntries(back.searchParams)).toEqual({
      from: 'lms',
      note: 'a b',
      partnerAssignmentId: a.assignmentId,
      externalUserId: 'stu 7&8',
      status: 'marking',
    });

    await page.goto(a.startUrl);
    await page.getByRole('heading', { name: 'Marking in progress' }).waitFor();
    expect(page.url()).toBe(`${origin}/a/${a.assignmentId}`);
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 90_000);

  it('completes an immediate test with the keyboard alone on a 360 px wide screen and shows the result', async () => {
    const a = await assign(h, tenant, { testId: quizTestId, externalUserId: 'kbd-1', callbackUrl: callbackUrl() });
    const { context, page, problems } = await newPage({ width: 360, height: 740 });
    const noSideScroll = () => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
    const focused = () => page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return { text: (el?.textContent ?? '').trim(), label: (el as HTMLInputElement | null)?.labels?.[0]?.textContent ?? '', outline: el ? getComputedStyle(el).outlineStyle : 'none' };
    });
    async function tabUntil(check: (f: Awaited<ReturnType<typeof focused>>) => boolean) {
      for (let i = 0; i < 30; i++) {
        await page.keyboard.press('Tab');
        const f = await focused();
        if (check(f)) return f;
      }
      throw new Error('focus never reached the element');
    }

    await page.goto(a.startUrl);
    expect(await noSideScroll()).toBe(true);
    const begin = await tabUntil((f) => f.text === 'Begin test');
    expect(begin.outline).not.toBe('none');
    await page.keyboard.press('Enter');
    await page.getByRole('timer').waitFor();
    expect(await noSideScroll()).toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);

    await tabUntil((f) => f.label === 'Three');
    await page.keyboard.press('ArrowDown');
    await tabUntil((f) => f.label === 'Two');
    await page.keyboard.press('Space');
    await tabUntil((f) => f.label === 'Five');
    await page.keyboard.press('Space');
    await tabUntil((f) => f.label.startsWith('Your answer to question 3'));
    await page.keyboard.type('2.5');
    await tabUntil((f) => f.label.startsWith('Your answer to question 4'));
    await page.keyboard.type('rome');
    await tabUntil((f) => f.text === 'Submit test');
    await page.keyboard.press('Enter');
    await tabUntil((f) => f.text === 'Submit');
    await page.keyboard.press('Enter');

    await page.getByRole('heading', { name: 'Your result' }).waitFor();
    expect(await noSideScroll()).toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);
    const facts = await page.locator('dl.result').innerText();
    expect(facts).toContain('5 of 5 points');
    expect(facts).toContain('100%');
    expect(facts).toContain('Passed');
    const read = await readAssignment(h, tenant, a.assignmentId);
    expect(read).toMatchObject({ status: 'completed', result: { available: true, score: { points: 5, maxPoints: 5, percent: 100, passed: true, gradingStatus: 'final' } } });

    await page.getByRole('link', { name: 'Return to Northfield University' }).click();
    await page.getByRole('heading', { name: 'Back at the partner' }).waitFor();
    expect(new URL(page.url()).searchParams.get('status')).toBe('completed');
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 90_000);

  it('counts down from the server deadline, warns at 5 and 1 minutes, and submits by itself at zero', async () => {
    const a = await assign(h, tenant, { testId: quizTestId, externalUserId: 'timer-1', callbackUrl: callbackUrl() });
    const { context, page, problems } = await newPage();
    await page.goto(a.startUrl);
    await page.getByRole('button', { name: 'Begin test' }).click();
    await page.getByRole('timer').waitFor();
    expect(await page.getByRole('timer').textContent()).toMatch(/^(20:00|19:5\d)$/);
    await group(page, 'What is 2 + 2?').getByLabel('Four').check();
    // Sent after a 0.3 s pause, then the request: more than expect.poll's default second on a busy machine.
    await expect.poll(() => saveStatus(page).textContent(), { timeout: 10_000 }).toBe('Saved');

    const startedAt = new Date((await readAssignment(h, tenant, a.assignmentId)).startedAt).getTime();
    const deadline = startedAt + 20 * 60_000;
    // The server's clock says 5 minutes and 12 seconds remain; the page believes it, whatever this machine's clock says.
    clock.set(new Date(deadline - 5 * 60_000 - 12_000));
    await page.reload();
    expect(await page.getByRole('timer').textContent()).toMatch(/^5:(0\d|1[0-2])$/);
    expect(await page.getByRole('alert').textContent()).toBe('');
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 30_000 }).toBe('Less than 5 minutes left.');

    clock.set(new Date(deadline - 3_000));
    await page.reload();
    expect(await page.getByRole('alert').textContent()).toContain('Less than 1 minute left.');
    await page.getByRole('heading', { name: 'Your result' }).waitFor({ timeout: 30_000 });
    const read = await readAssignment(h, tenant, a.assignmentId);
    expect(read).toMatchObject({ status: 'completed', result: { score: { points: 1, maxPoints: 5 } } });
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 90_000);
});

/** A clock that the test sets, and that runs on in real time from each setting. */
function runningClock() {
  let base = Date.now();
  let setAt = Date.now();
  return {
    now: () => new Date(base + (Date.now() - setAt)),
    set(d: Date) {
      base = d.getTime();
      setAt = Date.now();
    },
  };
}
