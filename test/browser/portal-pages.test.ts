import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createHarness, type Harness } from '../helpers/harness.js';
import { fastWebhooks } from '../helpers/webhook-setup.js';
import { freePort, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations, closeContext } from './browser-env.js';
import { portalPages } from './portal-pages.js';
import { seedPortal, type PortalSeed } from './portal-seed.js';

/**
 * Every portal page in Chromium, at desktop and phone width, as the role
 * that uses it: axe finds no serious or critical violation, nothing is wider
 * than a 360 px screen, and focus is always visible. One whole task, marking
 * a submission, done with the keyboard alone.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

let h: Harness;
let seed: PortalSeed;
let browser: Browser;
let origin: string;

run('portal pages in the browser', () => {
  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin, allowInsecureUrls: true, webhooks: fastWebhooks() } });
    await h.app.listen({ port, host: '127.0.0.1' });
    seed = await seedPortal(h.app, h.ctx, h.pool);
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  for (const [size, viewport] of [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 360, height: 760 }],
  ] as const) {
    it(`every page at ${size} width: no serious or critical axe violation${size === 'phone' ? ', nothing wider than the screen' : ''}`, async () => {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      const problems: string[] = [];
      for (const p of portalPages(seed)) {
        if (p.who) await seed.signIn(context, origin, p.who);
        else await context.clearCookies();
        const res = await page.goto(`${origin}${p.path}`);
        expect(res?.status(), p.name).toBeLessThan(400);
        if (p.act) await p.act(page);
        for (const v of await seriousAxeViolations(page)) problems.push(`${p.name}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
        if (size === 'phone') {
          const width = await page.evaluate(() => document.documentElement.scrollWidth);
          if (width > viewport.width) problems.push(`${p.name}: the page is ${width}px wide on a ${viewport.width}px screen`);
        }
      }
      await closeContext(context);
      expect(problems).toEqual([]);
    }, 180_000);
  }

  it('marks a submission with the keyboard alone, focus visible at every stop', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await seed.signIn(context, origin, 'reviewer');
    const page = await context.newPage();
    await page.goto(`${origin}/portal/marking`);

    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        const style = getComputedStyle(el);
        return { tag: el.tagName, text: (el.textContent ?? '').trim().slice(0, 80), name: el.getAttribute('name'), id: el.id, outline: style.outlineStyle, outlineWidth: style.outlineWidth };
      });
    /** Tabs until `match` has focus, checking each stop shows where focus is. */
    async function tabTo(match: (f: Awaited<ReturnType<typeof focused>>) => boolean, limit = 80) {
      for (let i = 0; i < limit; i++) {
        await page.keyboard.press('Tab');
        const f = await focused();
        if (f.tag !== 'BODY' && f.tag !== 'MAIN') expect(f.outline === 'none' || f.outlineWidth === '0px', `no visible focus on ${f.tag} ${f.text}`).toBe(false);
        if (match(f)) return f;
      }
      throw new Error('never reached the element with Tab');
    }

    await page.keyboard.press('Tab');
    expect((await focused()).text).toBe('Skip to main content');
    await page.keyboard.press('Enter');
    expect((await focused()).id).toBe('main');
    // The last row of the queue: a submission nobody has opened.
    const links = await page.getByRole('link', { name: /^Mark the submission of/ }).all();
    const target = (await links.at(-1)!.textContent())!.replace('Mark the submission of ', '').trim();
    await tabTo((f) => f.tag === 'A' && f.text === `Mark the submission of ${target}`);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: new RegExp(target) }).waitFor();

    await tabTo((f) => f.name?.startsWith('points-') === true);
    await page.keyboard.type('6.5');
    await tabTo((f) => f.name?.startsWith('comment-') === true);
    await page.keyboard.type('Clear and well ordered.');
    await tabTo((f) => f.tag === 'BUTTON' && f.text === 'Finish marking');
    await page.keyboard.press('Enter');
    await page.getByText('Marking finished.').waitFor();
    expect(page.url()).toBe(`${origin}/portal/marking?done=marking-finished`);
    const { rows } = await h.pool.query(
      `SELECT a.status, m.points, m.comment, m.marked_by FROM assignments a JOIN users u ON u.id = a.user_id
         JOIN marks m ON m.assignment_id = a.id AND m.source = 'reviewer' WHERE u.external_user_id = $1`,
      [target],
    );
    expect(rows).toEqual([{ status: 'completed', points: 6.5, comment: 'Clear and well ordered.', marked_by: seed.staff.reviewer.email }]);
    await closeContext(context);
  }, 60_000);
});

