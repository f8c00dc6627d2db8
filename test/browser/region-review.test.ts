import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { imageExample, uploadImage } from '../helpers/image-questions.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { Student, assign, createPublishedTest } from '../helpers/student.js';
import { VIEWPORTS, freePort, hasBrowser, launchBrowser, requireBrowser, closeContext } from './browser-env.js';
import { checkPortalPage, signInPortal } from './portal-check.js';

/**
 * The staff's answer view of hotspot and graphic_order questions that give
 * no imageWidth/imageHeight, in Chromium: the page runs no script to learn
 * the image's size, yet each region's outline sits on the image where its
 * coordinates (the image's own pixels) say, at 1280 and at 360 px (where the
 * 400 and 480 px images scroll in their own box, not the page); axe finds
 * nothing serious. select_point, which has no size fields, is checked the
 * same way. On the candidate's page the type's script sizes the outlines
 * from the loaded image and shows them, the picture scaled to a 360 px
 * column (they stayed hidden: Chromium did not restyle the overlay when its
 * viewBox was added).
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;
const example = (name: string) => (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, `../../docs/examples/tests/${name}.json`), 'utf8')) as TestInput).questions![0] as Record<string, unknown>;
/** select_point's picture, 400 × 300 (its question has no size fields: its answer view always shows the image at its own size). */
const POINT_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300" viewBox="0 0 400 300"><rect width="400" height="300" fill="#fdf6f0"/><rect x="100" y="100" width="100" height="100" fill="#e8a0a0"/></svg>`;

/** The example question of `type` with its image uploaded and its size left out. */
async function unsized(h: Harness, type: 'hotspot' | 'graphic_order'): Promise<Record<string, unknown>> {
  const q = { ...(await imageExample(h, type)).questions![0] } as Record<string, unknown>;
  delete q.imageWidth;
  delete q.imageHeight;
  return q;
}

run('image questions without an image size', () => {
  let h: Harness;
  let browser: Browser;
  let origin: string;
  let reviewer: PortalUser;
  let assignmentId: string;
  let testId: string;
  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    const input: TestInput = {
      title: 'Pictures without sizes',
      description: 'A hotspot and a graphic order question whose images have no size given.',
      durationMinutes: 10,
      proctoring: 'none',
      marking: 'auto',
      resultVisibility: 'immediate',
      questions: [await unsized(h, 'hotspot'), await unsized(h, 'graphic_order'), { ...example('select_point'), image: `asset:${await uploadImage(h, POINT_SVG)}` }] as never,
    };
    testId = await createPublishedTest(h, h.a, input);
    const a = await assign(h, h.a, { testId, externalUserId: 'unsized-1' });
    assignmentId = a.assignmentId;
    const s = new Student(h);
    await s.start(a.startUrl);
    expect((await s.page(assignmentId)).statusCode).toBe(200);
    const saved = await s.save(assignmentId, [
      { questionId: 'ventricles', value: ['rv', 'lv'], version: 1 },
      { questionId: 'walk-order', value: ['car-park', 'mill', 'ford', 'hill'], version: 1 },
      { questionId: 'chambers', value: [{ x: 150, y: 150 }], version: 1 },
    ]);
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await s.submit(assignmentId)).statusCode).toBe(303);
    reviewer = await signedIn(h, 'reviewer', h.a.institutionId, 'Rae Reviewer');
    browser = await launchBrowser();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  /** Where `region`'s outline is drawn, relative to its picture's image, in CSS pixels: its box holds the 2 px stroke, 1 px beyond the shape each side. */
  async function outlineOnImage(page: Page, region: string) {
    const g = page.locator(`.region-outline[data-region-id="${region}"] .region-shape`);
    const img = page.locator('.region-picture').filter({ has: g }).locator('img');
    await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBeGreaterThan(0);
    const [shape, image] = [await g.boundingBox(), await img.boundingBox()];
    expect(shape, `${region} outline shown`).not.toBeNull();
    return { x: shape!.x + 1 - image!.x, y: shape!.y + 1 - image!.y, width: shape!.width - 2, height: shape!.height - 2, imageWidth: image!.width };
  }

  it("on the candidate's page the outlines follow the image scaled to a 360 px column", async () => {
    const a = await assign(h, h.a, { testId, externalUserId: 'unsized-2' });
    const context = await browser.newContext({ viewport: VIEWPORTS.phone });
    try {
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      await page.goto(a.startUrl);
      await page.locator('#begin-button').focus();
      await page.keyboard.press('Enter');
      await page.getByRole('timer').waitFor();
      const overlay = (id: string) => page.locator(`fieldset[data-question-id="${id}"] .region-overlay`);
      await expect.poll(() => overlay('ventricles').getAttribute('viewBox')).toBe('0 0 400 360');
      await expect.poll(() => overlay('walk-order').getAttribute('viewBox')).toBe('0 0 480 320');
      const ra = await outlineOnImage(page, 'ra');
      expect(ra.imageWidth).toBeLessThan(360);
      const scale = ra.imageWidth / 400;
      for (const [got, want] of [[ra.x, 60], [ra.y, 60], [ra.width, 120], [ra.height, 90]] as const) expect(Math.abs(got - want * scale)).toBeLessThanOrEqual(1);
      const ford = await outlineOnImage(page, 'ford'); // circle 400, 230, r 28 on the 480 px walk
      const walkScale = ford.imageWidth / 480;
      for (const [got, want] of [[ford.x, 372], [ford.y, 202], [ford.width, 56]] as const) expect(Math.abs(got - want * walkScale)).toBeLessThanOrEqual(1);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      expect(problems).toEqual([]);
    } finally {
      await closeContext(context);
    }
  }, 120_000);

  for (const size of ['desktop', 'phone'] as const) {
    it(`the staff's answer view outlines every region where its coordinates say, at ${VIEWPORTS[size].width} px`, async () => {
      const context = await browser.newContext({ viewport: VIEWPORTS[size] });
      try {
        await signInPortal(h.pool, h.clock.now(), context, reviewer);
        const page = await context.newPage();
        await page.goto(`${origin}/portal/assignments/${assignmentId}`);
        // The heart is 400 × 360, the walk 480 × 320: each shown at its own size.
        const ra = await outlineOnImage(page, 'ra'); // rect 60, 60, 180, 150
        expect(ra.imageWidth).toBeCloseTo(400, 0);
        for (const [got, want] of [[ra.x, 60], [ra.y, 60], [ra.width, 120], [ra.height, 90]] as const) expect(got).toBeCloseTo(want, 0);
        const ao = await outlineOnImage(page, 'ao'); // circle 200, 30, r 25
        for (const [got, want] of [[ao.x, 175], [ao.y, 5], [ao.width, 50]] as const) expect(got).toBeCloseTo(want, 0);
        const ford = await outlineOnImage(page, 'ford'); // circle 400, 230, r 28
        expect(ford.imageWidth).toBeCloseTo(480, 0);
        for (const [got, want] of [[ford.x, 372], [ford.y, 202], [ford.width, 56]] as const) expect(got).toBeCloseTo(want, 0);
        // select_point's area A1, rect 100, 100, 200, 200 (its own 3 px stroke), on its image.
        const lv = await page.locator('.sp-review-marks rect').first().boundingBox();
        const pointImage = await page.locator('.sp-review-frame img').boundingBox();
        for (const [got, want] of [[lv!.x + 1.5 - pointImage!.x, 100], [lv!.y + 1.5 - pointImage!.y, 100], [lv!.width - 3, 100]] as const) expect(got).toBeCloseTo(want, 0);
        const axeProblems: string[] = [];
        await checkPortalPage(page, 'answer-unsized-image-regions', size, axeProblems);
        expect(axeProblems).toEqual([]);
      } finally {
        await closeContext(context);
      }
    }, 120_000);
  }
});
