import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { ADMIN_TOKEN, createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { assign, createPublishedTest, readAssignment } from '../helpers/student.js';
import { SHOTS, VIEWPORTS, freePort, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations, closeContext, tabTo } from './browser-env.js';

/**
 * A select_point question on the real student page in Chromium: answered
 * with the keyboard alone (Add point, the arrow keys), the answer autosaved
 * and drawn again after a reload, a tap on a phone placing a point, axe
 * clean and no sideways scroll at 1280 and 360 px, and the submission
 * marked by the areas hit.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;
const EXAMPLE = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/examples/tests/select_point.json'), 'utf8')) as TestInput;
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300" viewBox="0 0 400 300"><rect width="400" height="300" fill="#fdf6f0"/><rect x="100" y="100" width="100" height="100" fill="#e8a0a0"/><circle cx="250" cy="80" r="30" fill="#e0b0b0"/><polygon points="220,150 300,150 260,230" fill="#a0b8e8"/><rect x="180" y="180" width="60" height="60" fill="#c8a0e0" fill-opacity="0.7"/></svg>`;

run('a select_point question in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  let tenant: Tenant;
  let testId: string;
  beforeAll(async () => {
    const port = await freePort();
    h = await createHarness({ config: { publicBaseUrl: `http://127.0.0.1:${port}`, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    tenant = await h.createTenant('Northfield University', ['localhost']);
    const up = await h.app.inject({ method: 'POST', url: '/api/admin/v1/assets', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'image/svg+xml' }, payload: SVG });
    expect(up.statusCode, up.body).toBe(201);
    const input = structuredClone(EXAMPLE);
    (input.questions![0] as Record<string, unknown>).image = `asset:${up.json().assetId}`;
    testId = await createPublishedTest(h, tenant, input);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const stored = async (assignmentId: string) => (await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}`)).json().items[0].answer;
  const imageLoaded = (page: Page) => page.waitForFunction(() => (document.querySelector('.sp-image') as HTMLImageElement | null)?.naturalWidth === 400);
  async function checkLayout(page: Page, size: keyof typeof VIEWPORTS): Promise<void> {
    expect(await seriousAxeViolations(page), size).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), size).toBeLessThanOrEqual(VIEWPORTS[size].width);
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.locator('fieldset[data-question-id="chambers"]').screenshot({ path: path.join(SHOTS, `question-select-point-${size}.png`) });
  }

  it('is answered by keyboard alone, kept over a reload, usable by touch at 360 px, and marked by the areas hit', async () => {
    const a = await assign(h, tenant, { testId, externalUserId: 'sp-kbd' });
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    // A step that waits past this fails naming itself, rather than the whole test timing out.
    page.setDefaultTimeout(20_000);
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(a.startUrl);
    await tabTo(page, '#begin-button');
    await page.keyboard.press('Enter');
    await page.getByRole('timer').waitFor();
    await imageLoaded(page);

    // Add point puts a point at the centre (200, 150: the ventricle's right edge), then the arrows move it.
    await tabTo(page, '.sp-add');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.sp-live').textContent()).toBe('Point 1 at 200, 150 — in Left ventricle. Placed.');
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowLeft');
    await expect.poll(() => page.locator('.sp-live').textContent()).toBe('Point 1 at 150, 150 — in Left ventricle');
    // A second point, moved up into the aorta: (200, 150) → (250, 80).
    await tabTo(page, '.sp-add');
    await page.keyboard.press('Enter');
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
    for (let i = 0; i < 7; i++) await page.keyboard.press('ArrowUp');
    await expect.poll(() => page.locator('.sp-live').textContent()).toBe('Point 2 at 250, 80 — in Aorta');
    await page.keyboard.press('Tab');
    const answer = [{ x: 150, y: 150 }, { x: 250, y: 80 }];
    await expect.poll(() => stored(a.assignmentId), { timeout: 15_000 }).toEqual(answer);
    expect(await page.locator('#answered-count').textContent()).toBe('1 of 1 answered');
    await checkLayout(page, 'desktop');

    await page.reload();
    await imageLoaded(page);
    expect(await page.locator('.sp-marker').evaluateAll((ms) => ms.map((m) => m.getAttribute('aria-label')))).toEqual(['Point 1 at 150, 150 — in Left ventricle', 'Point 2 at 250, 80 — in Aorta']);

    // On a phone, a tap on the mitral valve alone (230, 235) places the third point there.
    const phone = await browser.newContext({ viewport: VIEWPORTS.phone, hasTouch: true, isMobile: true });
    const small = await phone.newPage();
    small.setDefaultTimeout(20_000);
    await small.goto(a.startUrl);
    await small.getByRole('timer').waitFor();
    await imageLoaded(small);
    const box = (await small.locator('.sp-image').boundingBox())!;
    await small.tap('.sp-image', { position: { x: (230 / 400) * box.width, y: (235 / 300) * box.height } });
    await expect.poll(() => small.locator('.sp-live').textContent()).toMatch(/^Point 3 at 2\d\d, 2\d\d — in Mitral valve\. Placed\.$/);
    await expect.poll(async () => ((await stored(a.assignmentId)) as unknown[]).length, { timeout: 15_000 }).toBe(3);
    await checkLayout(small, 'phone');
    await closeContext(phone);

    await page.reload();
    await tabTo(page, '#open-submit');
    await page.keyboard.press('Enter');
    await tabTo(page, '#confirm-submit');
    await page.keyboard.press('Enter');
    // 2 (ventricle) + 1 (aorta) + 3 (valve) = 6, capped at the question's 4.
    await expect.poll(async () => (await readAssignment(h, tenant, a.assignmentId)).result?.score ?? null, { timeout: 15_000 }).toMatchObject({ points: 4, maxPoints: 4 });
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 240_000);
});
