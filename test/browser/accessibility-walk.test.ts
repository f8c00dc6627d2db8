import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { portalJson } from '../helpers/authoring.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { ALL_TYPES_TEST, Student, assign, createPublishedTest } from '../helpers/student.js';
import { focusProblems, outlineOf, outlineProblems, smallTargets, walkByKeyboard, type FocusStop } from './a11y-walk.js';
import { closeContext, freePort, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations, tabTo, VIEWPORTS } from './browser-env.js';
import { signInPortal } from './portal-check.js';

/**
 * The scripted walk-throughs behind docs/accessibility.md. The portal's
 * marking page (an essay to mark) and its test editor are walked by Tab
 * alone from the top to the end and back by Shift+Tab, at 1280 and 360 px:
 * every stop has a role and a name in the accessibility tree, a visible
 * focus indicator, and is not hidden under a sticky bar (2.4.7, 2.4.11,
 * 4.1.2); the headings form an outline under one h1 and the landmarks are
 * there (1.3.1, 2.4.1, 2.4.6); axe finds nothing serious. The candidate's
 * test page (several question types, English) gets the focus and target
 * size checks (2.5.8), and the focus check again with supervision warnings
 * making its sticky bar taller; its full walk by name is the candidate
 * languages test's.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

const ORDERING_TEST: TestInput = {
  ...ALL_TYPES_TEST,
  title: 'Every question type, and an order',
  questions: [
    ...ALL_TYPES_TEST.questions!,
    { id: 'or', type: 'ordering', prompt: 'Put the steps in order.', points: 1, items: [{ id: 'a', text: 'Open the door' }, { id: 'b', text: 'Walk through' }, { id: 'c', text: 'Close the door' }] },
    {
      id: 'ma',
      type: 'matching',
      prompt: 'Match the opposites.',
      points: 2,
      stems: [{ id: 'big', text: 'big' }, { id: 'up', text: 'up' }],
      choices: [{ id: 'small', text: 'small' }, { id: 'down', text: 'down' }],
      correct: { big: 'small', up: 'down' },
    },
  ],
};
const ESSAY = 'I wake at seven, open the window and make tea. Then I read the news for ten minutes before I walk to the station.';

let h: Harness;
let browser: Browser;
let origin: string;
let reviewer: PortalUser;
let author: PortalUser;
let attemptId: string;
let draftId: string;
let startUrl: string;

/** Both walks, forward from the top and back from the end, with the stops' problems; the forward stops for the caller's own checks. */
async function walkBothWays(page: Page, label: string): Promise<FocusStop[]> {
  const forward = await walkByKeyboard(page, 'Tab');
  expect(forward.length, `${label}: focus stops`).toBeGreaterThan(5);
  expect(focusProblems(forward), `${label}, Tab`).toEqual([]);
  const back = await walkByKeyboard(page, 'Shift+Tab');
  expect(focusProblems(back), `${label}, Shift+Tab`).toEqual([]);
  // Back from the end meets the same stops in the reverse order: the order is the reading order both ways.
  expect(back.map((s) => s.element), `${label}: Shift+Tab retraces Tab`).toEqual([...forward].reverse().map((s) => s.element));
  return forward;
}

async function checkOutlineAndAxe(page: Page, label: string, size: keyof typeof VIEWPORTS): Promise<void> {
  const { headings, landmarks } = await outlineOf(page);
  expect(outlineProblems(headings), `${label} ${size}: headings ${JSON.stringify(headings)}`).toEqual([]);
  for (const landmark of ['banner', 'navigation', 'main', 'contentinfo']) expect(landmarks, `${label} ${size}: landmarks`).toContain(landmark);
  expect(landmarks.filter((l) => l === 'main'), `${label} ${size}: one main`).toHaveLength(1);
  expect(await seriousAxeViolations(page), `${label} ${size}: axe`).toEqual([]);
  expect(await smallTargets(page), `${label} ${size}: targets under 24 × 24 px and not spaced`).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), `${label} ${size}: sideways scroll`).toBeLessThanOrEqual(0);
}

run('accessibility walk-throughs of the portal and the test page', () => {
  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    const testId = await createPublishedTest(h, h.a, ORDERING_TEST);
    // An attempt submitted with an essay: hybrid marking leaves it waiting for a reviewer.
    const a = await assign(h, h.a, { testId, externalUserId: 'stu-0412', user: { email: 'noor@example.org', name: 'Noor Haddad' } });
    const s = new Student(h);
    await s.start(a.startUrl);
    await s.page(a.assignmentId);
    expect((await s.save(a.assignmentId, [{ questionId: 'sc', value: 'a', version: 1 }, { questionId: 'es', value: ESSAY, version: 1 }])).statusCode).toBe(200);
    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
    attemptId = a.assignmentId;
    startUrl = (await assign(h, h.a, { testId, externalUserId: 'stu-0413' })).startUrl;
    reviewer = await signedIn(h, 'reviewer', h.a.institutionId, 'Rae Reviewer');
    author = await signedIn(h, 'author', h.a.institutionId, 'Ada Author');
    const draft = await portalJson(h, author, 'POST', '/portal/authoring/tests', { content: ORDERING_TEST });
    expect(draft.statusCode).toBe(201);
    draftId = draft.json().testId as string;
    browser = await launchBrowser();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  for (const size of ['desktop', 'phone'] as const) {
    it(`the marking page of an essay, by keyboard alone at ${size} width`, async () => {
      const context = await browser.newContext({ viewport: VIEWPORTS[size], reducedMotion: 'reduce' });
      await signInPortal(h.pool, h.clock.now(), context, reviewer);
      const page = await context.newPage();
      try {
        await page.goto(`${origin}/portal/marking/${attemptId}`);
        await page.getByRole('heading', { level: 1, name: /Noor Haddad/ }).waitFor();
        const stops = await walkBothWays(page, `marking ${size}`);
        // The walk reaches the essay's points and comment and the save button, each by its label.
        expect(stops.find((x) => x.role === 'button' && /^Save/.test(x.name)), `marking ${size}: ${JSON.stringify(stops)}`).toBeTruthy();
        expect(stops.some((x) => x.role === 'spinbutton' || x.role === 'textbox')).toBe(true);
        expect(stops[0]!.name).toBe('Skip to main content');
        await checkOutlineAndAxe(page, 'marking', size);
      } finally {
        await closeContext(context);
      }
    }, 180_000);

    it(`the test editor, by keyboard alone at ${size} width`, async () => {
      const context = await browser.newContext({ viewport: VIEWPORTS[size], reducedMotion: 'reduce' });
      await signInPortal(h.pool, h.clock.now(), context, author);
      const page = await context.newPage();
      page.on('dialog', (d) => void d.dismiss());
      try {
        await page.goto(`${origin}/portal/tests/${draftId}/edit`);
        await page.getByRole('group', { name: /^Question 7 \(/ }).waitFor();
        const stops = await walkBothWays(page, `editor ${size}`);
        expect(stops.some((x) => x.role === 'button' && x.name === 'Save draft'), `editor ${size}: ${JSON.stringify(stops.map((x) => `${x.role} ${x.name}`))}`).toBe(true);
        expect(stops[0]!.name).toBe('Skip to main content');
        await checkOutlineAndAxe(page, 'editor', size);
      } finally {
        await closeContext(context);
      }
    }, 240_000);
  }

  it('the test page: focus seen both ways, and every control at least 24 × 24 px or spaced, at both widths', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop, reducedMotion: 'reduce' });
    const page = await context.newPage();
    try {
      await page.goto(startUrl);
      await tabTo(page, '#begin-button');
      await page.keyboard.press('Enter');
      await page.getByRole('timer').waitFor();
      for (const size of ['desktop', 'phone'] as const) {
        await page.setViewportSize(VIEWPORTS[size]);
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.locator('#main').focus();
        await page.evaluate(() => (document.activeElement as HTMLElement).blur());
        const forward = await walkByKeyboard(page, 'Tab');
        expect(forward.length, `test page ${size}: stops`).toBeGreaterThan(10);
        expect(focusProblems(forward), `test page ${size}, Tab`).toEqual([]);
        expect(focusProblems(await walkByKeyboard(page, 'Shift+Tab')), `test page ${size}, Shift+Tab`).toEqual([]);
        expect(await smallTargets(page), `test page ${size}: targets under 24 × 24 px and not spaced`).toEqual([]);
      }
      // Supervision warnings grow the sticky bar (a proctored test's, as proctor-notices.js fills it): the focus still
      // clears it. The real module draws the warnings into the real bar; no camera is needed for the layout.
      await page.setViewportSize(VIEWPORTS.phone);
      // A string, so the test's bundler leaves the page's own import() alone.
      await page.evaluate(`(async () => {
        const box = document.createElement('div');
        box.className = 'proctor-notices';
        box.innerHTML = '<div id="proctor-alert" class="proctor-alert" role="alert"></div><div id="proctor-notice" class="proctor-notice" role="status"></div>';
        document.querySelector('.status-bar').append(box);
        const { createNotices } = await import('/assets/proctoring/proctor-notices.js');
        const notices = createNotices({ alertEl: document.getElementById('proctor-alert'), noticeEl: document.getElementById('proctor-notice') });
        notices.warn('no_face', 'We can’t see your face.', 'Move so your face is in view of the camera.');
        notices.warn('camera', 'Your camera stopped.', 'Your answers are still saved. Allow the camera again to continue being recorded.');
      })()`);
      const bar = await page.locator('.status-bar').evaluate((el) => el.getBoundingClientRect().height);
      expect(bar, 'the bar with two warnings is taller than the 4.5 rem the stylesheet keeps clear').toBeGreaterThan(72);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.locator('#main').focus();
      await page.evaluate(() => (document.activeElement as HTMLElement).blur());
      await walkByKeyboard(page, 'Tab');
      expect(focusProblems(await walkByKeyboard(page, 'Shift+Tab')), 'test page with warnings, Shift+Tab').toEqual([]);

      // The measure sees a small target when there is one: two 16 px buttons side by side are each too small and too close.
      await page.evaluate(() => {
        for (const left of [0, 18]) {
          const b = document.createElement('button');
          b.textContent = 'x';
          Object.assign(b.style, { position: 'absolute', top: '0', left: `${left}px`, width: '16px', height: '16px', padding: '0', border: '0', minHeight: '0', minWidth: '0' });
          document.getElementById('main')!.append(b);
        }
      });
      expect((await smallTargets(page)).map((t) => [t.width, t.height])).toEqual([[16, 16], [16, 16]]);
    } finally {
      await closeContext(context);
    }
  }, 180_000);
});
