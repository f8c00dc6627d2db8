import { describe, expect, it } from 'vitest';
import { portalJson } from '../helpers/authoring.js';
import { closeContext, hasBrowser, requireBrowser, VIEWPORTS } from './browser-env.js';
import { editorRig, typeInto } from './editor-steps.js';
import { signInPortal } from './portal-check.js';

/**
 * A save refused because the server is busy (503: the worker pool that
 * checks a test's new texts is full, docs/authoring.md "How a save is
 * checked") loses nothing: the editor says so, keeps the change and sends it
 * again by itself, and the draft ends up saved.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

run('the form editor when the server is busy', () => {
  const rig = editorRig();

  it('keeps the change after a 503 and saves it on its own a moment later', async () => {
    const { h, browser, origin, author } = rig;
    const created = await portalJson(h, author, 'POST', '/portal/authoring/tests', { content: { title: 'Busy day', questions: [] } });
    expect(created.statusCode).toBe(201);
    const testId = created.json().testId as string;
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    try {
      await signInPortal(h.pool, h.clock.now(), context, author);
      const page = await context.newPage();
      // The first save is answered as a full pool answers it; the ones after it reach the server.
      let refused = 0;
      await page.route(`**/portal/authoring/tests/${testId}/draft`, async (route) => {
        if (route.request().method() !== 'PUT' || refused > 0) return route.continue();
        refused++;
        await route.fulfill({
          status: 503,
          headers: { 'content-type': 'application/json', 'retry-after': '5' },
          body: JSON.stringify({ error: { code: 'unavailable', message: 'The server is busy checking other tests: try again in a few seconds.', requestId: 'req_test' } }),
        });
      });
      await page.goto(`${origin}/portal/tests/${testId}/edit`);
      await typeInto(page.getByLabel('Title', { exact: true }), 'Busy day, saved anyway');
      const status = page.locator('#editor-status');
      await expect.poll(() => status.innerText(), { timeout: 10_000 }).toContain('The server is busy checking other tests');
      expect(refused).toBe(1);
      // Nothing typed since: the editor sends the kept change again by itself.
      await expect.poll(() => status.innerText(), { timeout: 15_000 }).toMatch(/^Saved at/);
      const row = await h.pool.query<{ title: string }>("SELECT content->>'title' AS title FROM test_drafts WHERE test_id = $1", [testId]);
      expect(row.rows[0]!.title).toBe('Busy day, saved anyway');
    } finally {
      await closeContext(context);
    }
  });
});
