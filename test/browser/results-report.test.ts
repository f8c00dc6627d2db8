import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { publishedVersion, seedAttempts } from '../helpers/results.js';
import { SHOTS, VIEWPORTS, freePort, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations, closeContext } from './browser-env.js';

/**
 * The candidate report in Chromium, live and test mode, at desktop and
 * phone width: no serious or critical axe violation, nothing wider than a
 * 360 px screen, every link reachable by Tab with a visible focus, and the
 * test-mode notice on every printed page (the page printed to PDF by the
 * browser, as a reader would print it). Screenshots: docs/screenshots when
 * ASSAY_WRITE_SCREENSHOTS=1.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

const TEST: TestInput = {
  title: 'Data analysis certificate',
  description: '',
  durationMinutes: 30,
  proctoring: 'record',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: 60,
  sections: ['Statistics', 'Probability', 'Data cleaning'].map((title, i) => ({
    id: `s${i}`,
    title,
    questions: [{ id: `q${i}`, type: 'numeric' as const, prompt: `${i} + 1?`, points: 4, answer: i + 1 }],
  })),
};
const delivery = { sections: TEST.sections!.map((s, i) => ({ sectionId: s.id!, questionIds: [`q${i}`] })), optionOrder: {}, itemOrder: {} };
const marks = { q0: 4, q1: 2.5, q2: 3 };

let h: Harness;
let browser: Browser;
let origin: string;
const ids: { live: string; test: string } = { live: '', test: '' };

run('the candidate report in the browser', () => {
  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin } });
    await h.app.listen({ port, host: '127.0.0.1' });
    const t = await publishedVersion(h, h.a, TEST);
    const one = (externalUserId: string, name: string) => [{ externalUserId, name, delivery, answers: {}, marks }];
    ids.live = (await seedAttempts(h, h.a, t, 12, one('hr-40213', 'Amara Okafor'), { passPercent: 60 }))[0]!;
    ids.test = (await seedAttempts(h, h.a, t, 12, one('sandbox-7', 'Test Candidate'), { livemode: false, passPercent: 60 }))[0]!;
    const sections = TEST.sections!.map((s, i) => ({ sectionId: s.id!, title: s.title, points: Object.values(marks)[i]!, maxPoints: 4, percent: (Object.values(marks)[i]! / 4) * 100 }));
    await h.pool.query(`UPDATE assignments SET score = jsonb_set(score, '{sections}', $2::jsonb) WHERE id = ANY($1)`, [[ids.live, ids.test], JSON.stringify(sections)]);
    await h.pool.query(
      `INSERT INTO proctoring_flags (id, institution_id, assignment_id, signal_id, kind, severity, started_at, duration_seconds, ongoing, review_outcome, created_at, updated_at)
       VALUES ('flg_b1', $1, $2, 's1', 'left_test', 'warning', now(), 4, false, 'dismissed', now(), now()),
              ('flg_b2', $1, $2, 's2', 'multiple_faces', 'critical', now(), 9, false, NULL, now(), now())`,
      [h.a.institutionId, ids.live],
    );
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const link = (id: string) => h.ctx.signer.report.issue(id, h.ctx.signer.report.expiryFor(h.clock.now()));

  for (const size of ['desktop', 'phone'] as const) {
    it(`passes axe, fits the screen and works by keyboard at ${size} width`, async () => {
      const context = await browser.newContext({ viewport: VIEWPORTS[size] });
      const page = await context.newPage();
      const problems: string[] = [];
      for (const mode of ['live', 'test'] as const) {
        const res = await page.goto(link(ids[mode]));
        expect(res?.status()).toBe(200);
        await expect(page.locator('h1').textContent()).resolves.toBe('Result report: Data analysis certificate');
        for (const v of await seriousAxeViolations(page)) problems.push(`${mode}: ${v.id} (${v.impact}) ${v.help}`);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(VIEWPORTS[size].width);
        // Tab reaches the PDF link (past the scrollable tables), with a visible focus outline.
        let focused = '';
        for (let i = 0; i < 8 && focused !== 'Download this report as a PDF'; i++) {
          await page.keyboard.press('Tab');
          focused = await page.evaluate(() => document.activeElement?.textContent ?? '');
        }
        expect(focused).toBe('Download this report as a PDF');
        const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
        expect(outline).not.toBe('none');
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        await page.setViewportSize({ width: VIEWPORTS[size].width, height: Math.min(height, 4000) });
        fs.mkdirSync(SHOTS, { recursive: true });
        await page.screenshot({ path: path.join(SHOTS, `report-${mode}-${size}.png`) });
        await page.setViewportSize(VIEWPORTS[size]);
      }
      await closeContext(context);
      expect(problems).toEqual([]);
    }, 120_000);
  }

  it('prints the test-mode notice on every page', async () => {
    const page = await browser.newPage();
    await page.goto(link(ids.test));
    // Enough rows for several printed pages.
    await page.evaluate(() => {
      const body = document.querySelector<HTMLTableSectionElement>('.report-table tbody')!;
      for (let i = 0; i < 80; i++) body.appendChild(body.rows[0]!.cloneNode(true));
    });
    const pdf = await page.pdf({ format: 'A4' });
    await page.close();
    const file = path.join(SHOTS, 'report-print-test.pdf');
    fs.mkdirSync(SHOTS, { recursive: true });
    fs.writeFileSync(file, pdf);
    const { execFileSync } = await import('node:child_process');
    const pages = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' }).split('\f').filter((p) => p.trim() !== '');
    fs.rmSync(file);
    expect(pages.length).toBeGreaterThan(1);
    for (const [i, p] of pages.entries()) expect(p, `printed page ${i + 1}`).toContain('sandbox run made with a test API key');
  }, 60_000);
});
