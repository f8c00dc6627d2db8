import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { publishedVersion, seedAttempts } from '../helpers/results.js';
import { freePort, hasBrowser, launchBrowser, requireBrowser, VIEWPORTS, closeContext } from './browser-env.js';
import { checkPortalPage, signInPortal } from './portal-check.js';

/**
 * A test's Statistics page in Chromium, reached by a viewer from the main
 * navigation's Statistics page: 40 attempts of a sectioned test with choice
 * and numeric questions (one prompt with a formula); at 1280 and 360 px axe
 * finds nothing serious, nothing is wider than the screen, and the chart's
 * labels are drawn at least 12 px tall (screenshots portal-statistics-*.png,
 * portal-statistics-list-*.png).
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;
const options = [{ id: 'a', text: 'Newton' }, { id: 'b', text: 'Joule' }, { id: 'c', text: 'Watt' }, { id: 'd', text: 'Pascal' }];
const TEST: TestInput = {
  title: 'Mechanics, unit 3',
  description: '',
  durationMinutes: 30,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: 50,
  contentFormat: 'markdown',
  sections: [
    {
      id: 'units',
      title: 'Units',
      questions: [
        { id: 'q1', type: 'single_choice', prompt: 'The SI unit of force?', points: 1, options, correctOptionId: 'a' },
        { id: 'q2', type: 'single_choice', prompt: 'The SI unit of energy?', points: 1, options, correctOptionId: 'b' },
      ],
    },
    {
      id: 'sums',
      title: 'Calculations',
      questions: [
        { id: 'q3', type: 'numeric', prompt: 'A 2 kg mass accelerates at 3 m/s². The force $F = ma$ in newtons?', points: 2, answer: 6 },
        { id: 'q4', type: 'numeric', prompt: 'Work done by 5 N over 4 m, in joules?', points: 2, answer: 20 },
      ],
    },
  ],
};

let h: Harness;
let browser: Browser;
let origin: string;
let viewer: PortalUser;
let testId: string;
const axeProblems: string[] = [];

run('the Statistics page', () => {
  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin } });
    await h.app.listen({ port, host: '127.0.0.1' });
    viewer = await signedIn(h, 'viewer', h.a.institutionId, 'Vera Viewer');
    const test = await publishedVersion(h, h.a, TEST);
    testId = test.testId;
    const delivery = { sections: [{ sectionId: 'units', questionIds: ['q1', 'q2'] }, { sectionId: 'sums', questionIds: ['q3', 'q4'] }], optionOrder: {}, itemOrder: {} };
    const picks = ['a', 'a', 'a', 'b', 'c', 'a', 'b', 'a'];
    await seedAttempts(
      h,
      h.a,
      test,
      6,
      Array.from({ length: 40 }, (_, i) => {
        const q1 = picks[i % picks.length]!;
        const q2 = picks[(i * 3) % picks.length] === 'a' ? 'b' : 'c';
        return { externalUserId: `student-${i}`, delivery, answers: { q1, q2 }, marks: { q1: q1 === 'a' ? 1 : 0, q2: q2 === 'b' ? 1 : 0, q3: i % 3 === 0 ? 0 : 2, q4: i % 4 === 0 ? 2 : 0 } };
      }),
    );
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('is reached from the navigation by a viewer, keeps its chart labels readable, and passes axe at both widths', async () => {
    for (const size of ['desktop', 'phone'] as const) {
      const context = await browser.newContext({ viewport: VIEWPORTS[size] });
      await signInPortal(h.pool, h.clock.now(), context, viewer);
      const page = await context.newPage();
      await page.goto(`${origin}/portal`);
      if (size === 'phone') await page.getByRole('button', { name: /^Menu/ }).click();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Statistics' }).click();
      await page.getByRole('heading', { level: 1, name: 'Statistics' }).waitFor();
      await checkPortalPage(page, 'statistics-list', size, axeProblems);
      await page.getByRole('link', { name: 'Mechanics, unit 3' }).click();
      await page.getByRole('heading', { level: 1, name: 'Statistics: Mechanics, unit 3' }).waitFor();
      expect(await page.locator('dl.cards').innerText()).toContain('40');
      const questions = page.getByRole('table', { name: 'Questions: facility, discrimination and flags' });
      expect(await questions.innerText()).toContain('The SI unit of force?');
      expect(await questions.locator('math').count()).toBe(1); // F = ma, as MathML
      expect(await questions.innerText()).not.toContain('$');
      expect(await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href')).toBe(`/portal/tests/${testId}/statistics.csv?version=1&mode=live`);

      // Every label of the chart shown is at least 12 px tall on the screen, its question numbers included.
      const labels = await page.locator('svg.chart.scatter').evaluateAll((svgs) =>
        svgs
          .filter((svg) => (svg as SVGSVGElement).getBoundingClientRect().width > 0)
          .flatMap((svg) =>
            [...svg.querySelectorAll('text')].map((text) => {
              const scale = (svg as SVGSVGElement).getScreenCTM()!.a;
              return { text: text.textContent, px: parseFloat(getComputedStyle(text).fontSize) * scale, height: text.getBoundingClientRect().height, dot: text.classList.contains('dot-label') };
            }),
          ),
      );
      expect(labels.filter((l) => l.dot).map((l) => l.text).sort()).toEqual(['1', '2', '3', '4']);
      for (const l of labels) {
        expect(l.px, `${size}: "${l.text}" drawn at ${l.px.toFixed(1)} px`).toBeGreaterThanOrEqual(12);
        expect(l.height, `${size}: "${l.text}" ${l.height.toFixed(1)} px tall`).toBeGreaterThanOrEqual(12);
      }
      expect(await page.locator('svg.chart.scatter.' + (size === 'phone' ? 'narrow' : 'wide')).isVisible()).toBe(true);
      await checkPortalPage(page, 'statistics', size, axeProblems);

      // The breadcrumb leads back to the list, which a viewer may open.
      await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Statistics' }).click();
      await page.getByRole('heading', { level: 1, name: 'Statistics' }).waitFor();
      await closeContext(context);
    }
    expect(axeProblems).toEqual([]);
  }, 120_000);
});
