import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { HEART_SVG, uploadImage, WALK_SVG } from '../helpers/image-questions.js';
import { assign, createPublishedTest, readAssignment } from '../helpers/student.js';
import { VIEWPORTS, freePort, hasBrowser, launchBrowser, requireBrowser, seriousAxeViolations, closeContext } from './browser-env.js';
import { storedAnswers, tabTo } from './image-question-kit.js';

/**
 * The seven newer kinds of question in one sectioned test, as a candidate
 * meets them: hotspot, select_point and graphic_order in an image section;
 * hot_text, slider, associate and a parametrised numeric question in a
 * second. Answered by keyboard alone at 1280 px, reloaded half-way with
 * every answer back and the candidate's own numbers unchanged, submitted,
 * marked, and the section scores read; then a second candidate does the
 * same by touch on a 360 px phone.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;
const example = (name: string) => JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, `../../docs/examples/tests/${name}.json`), 'utf8')) as TestInput;
const only = (name: string) => example(name).questions![0]! as Record<string, unknown>;
/** select_point's picture: the example's areas drawn where they are, 400 × 300. */
const POINT_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300" viewBox="0 0 400 300"><rect width="400" height="300" fill="#fdf6f0"/><rect x="100" y="100" width="100" height="100" fill="#e8a0a0"/><circle cx="250" cy="80" r="30" fill="#e0b0b0"/><polygon points="220,150 300,150 260,230" fill="#a0b8e8"/></svg>`;
const WALK = ['car-park', 'mill', 'hill', 'ford'];
const Q = (id: string) => `fieldset[data-question-id="${id}"]`;

run('the newer question types in one sectioned test', () => {
  let h: Harness;
  let browser: Browser;
  let tenant: Tenant;
  let testId: string;
  beforeAll(async () => {
    const port = await freePort();
    h = await createHarness({ config: { publicBaseUrl: `http://127.0.0.1:${port}`, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    tenant = await h.createTenant('Northfield University', ['localhost']);
    const [heart, point, walk] = [await uploadImage(h, HEART_SVG), await uploadImage(h, POINT_SVG), await uploadImage(h, WALK_SVG)];
    const force = (example('parametrised').questions as Array<Record<string, unknown>>).find((q) => q.id === 'force')!;
    const input: TestInput = {
      title: 'Science and Language: Mixed Interactions',
      description: 'Every newer kind of question, in two sections.',
      durationMinutes: 30,
      proctoring: 'none',
      marking: 'auto',
      resultVisibility: 'immediate',
      sections: [
        {
          id: 'images',
          title: 'Section A: Pictures',
          questions: [
            { ...only('hotspot'), image: `asset:${heart}` },
            { ...only('select_point'), image: `asset:${point}` },
            { ...only('graphic_order'), image: `asset:${walk}` },
          ] as never,
        },
        { id: 'words', title: 'Section B: Words and numbers', questions: [only('hot_text'), only('slider'), only('associate'), force] as never },
      ],
    };
    testId = await createPublishedTest(h, tenant, input);
    browser = await launchBrowser();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  /** The candidate's own values of the parametrised question, as stored with the draw. */
  async function values(assignmentId: string): Promise<{ m: number; a: number }> {
    const { rows } = await h.pool.query<{ delivery: { values: Record<string, { m: number; a: number }> } }>('SELECT delivery FROM attempts WHERE assignment_id = $1', [assignmentId]);
    return rows[0]!.delivery.values.force!;
  }
  const shownOrder = (page: Page) => page.locator(`${Q('walk-order')} .region-order li`).evaluateAll((lis) => lis.map((li) => (li as HTMLElement).dataset.itemId));
  async function begin(page: Page, startUrl: string): Promise<void> {
    await page.goto(startUrl);
    await page.locator('#begin-button').focus();
    await page.keyboard.press('Enter');
    await page.getByRole('timer').waitFor();
  }
  async function layout(page: Page, size: keyof typeof VIEWPORTS): Promise<void> {
    expect(await seriousAxeViolations(page), size).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), size).toBeLessThanOrEqual(VIEWPORTS[size].width);
  }
  async function submit(page: Page): Promise<void> {
    await tabTo(page, '#open-submit');
    await page.keyboard.press('Enter');
    await tabTo(page, '#confirm-submit');
    await page.keyboard.press('Enter');
  }
  async function scoreOf(assignmentId: string) {
    await expect.poll(async () => (await readAssignment(h, tenant, assignmentId)).result?.score ?? null, { timeout: 20_000 }).not.toBeNull();
    return (await readAssignment(h, tenant, assignmentId)).result.score as { points: number; maxPoints: number; sections: Array<{ sectionId: string; points: number; maxPoints: number }> };
  }

  it('is answered by keyboard alone, kept over a reload with the same numbers, and marked per section', async () => {
    const a = await assign(h, tenant, { testId, externalUserId: 'all-types-kbd' });
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await begin(page, a.startUrl);

    // Section A by keyboard: two ventricles; a point moved into the left ventricle; the walk put in order.
    for (const id of ['lv', 'rv']) {
      await tabTo(page, `${Q('ventricles')} .region-toggle[data-region-id="${id}"]`);
      await page.keyboard.press('Space');
    }
    await tabTo(page, `${Q('chambers')} .sp-add`);
    await page.keyboard.press('Enter');
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowLeft');
    for (let pos = 0; pos < WALK.length; pos++) {
      const from = (await shownOrder(page)).indexOf(WALK[pos]!);
      if (from === pos) continue;
      await tabTo(page, `${Q('walk-order')} .region-order li[data-item-id="${WALK[pos]}"] [data-region-move=up]`);
      for (let k = from; k > pos; k--) await page.keyboard.press('Enter');
    }
    await page.keyboard.press('Tab');
    const sectionA = { ventricles: ['rv', 'lv'], chambers: [{ x: 150, y: 150 }], 'walk-order': WALK };
    await expect.poll(async () => Object.fromEntries(Object.entries(await storedAnswers(h, a.assignmentId)).filter(([k]) => k in sectionA)), { timeout: 20_000 }).toEqual(sectionA);
    const mine = await values(a.assignmentId);
    const prompt = `accelerates a ${mine.m} kg car at ${mine.a} m/s²`;
    expect(await page.locator(Q('force')).innerText()).toContain(prompt);

    // Half-way: a reload brings every answer back and the same numbers.
    await page.reload();
    await page.getByRole('timer').waitFor();
    for (const id of ['lv', 'rv']) expect(await page.locator(`${Q('ventricles')} .region-toggle[data-region-id="${id}"]`).getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator(`${Q('chambers')} .sp-marker`).count()).toBe(1);
    expect(await shownOrder(page)).toEqual(WALK);
    expect(await page.locator(Q('force')).innerText()).toContain(prompt);
    expect(await values(a.assignmentId)).toEqual(mine);

    // Section B by keyboard: the two verbs; the slider to 100; the three synonym pairs; the force for this candidate's numbers.
    for (const id of ['sat', 'purred']) {
      await tabTo(page, `${Q('verbs')} .hot-phrase[data-hotspot-id="${id}"]`);
      await page.keyboard.press('Enter');
    }
    await tabTo(page, `${Q('boiling')} input[type=range]`);
    for (let i = 0; i < 40 && (await page.locator(`${Q('boiling')} input[type=range]`).inputValue()) !== '100'; i++) {
      await page.keyboard.press(Number(await page.locator(`${Q('boiling')} input[type=range]`).inputValue()) < 100 ? 'ArrowRight' : 'ArrowLeft');
    }
    for (const [first, second] of [['big', 'large'], ['small', 'little'], ['quick', 'fast']] as const) {
      for (const [cls, value] of [['first', first], ['second', second]] as const) {
        await tabTo(page, `${Q('synonyms')} select.assoc-${cls}`);
        const current = () => page.evaluate(() => (document.activeElement as HTMLSelectElement).value);
        for (let i = 0; i < 10 && (await current()) !== value; i++) await page.keyboard.press('ArrowDown');
        expect(await current()).toBe(value);
      }
      await tabTo(page, `${Q('synonyms')} .assoc-add`);
      await page.keyboard.press('Enter');
    }
    await tabTo(page, `${Q('force')} input[type=text]`);
    await page.keyboard.type(String(mine.m * mine.a));
    await page.keyboard.press('Tab');
    await expect.poll(() => storedAnswers(h, a.assignmentId), { timeout: 20_000 }).toMatchObject({
      verbs: ['sat', 'purred'],
      boiling: 100,
      synonyms: [['big', 'large'], ['small', 'little'], ['quick', 'fast']],
      force: String(mine.m * mine.a),
    });
    expect(await page.locator('#answered-count').textContent()).toBe('7 of 7 answered');
    await layout(page, 'desktop');

    await submit(page);
    const score = await scoreOf(a.assignmentId);
    // Hotspot 4 (both ventricles), point 2 (left ventricle of 4), walk 4; verbs 2, boiling 1, synonyms 3, force 2.
    expect(score).toMatchObject({ points: 18, maxPoints: 20 });
    expect(score.sections.map((s) => [s.sectionId, s.points, s.maxPoints])).toEqual([['images', 10, 12], ['words', 8, 8]]);
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 300_000);

  it('is answered by touch on a 360 px phone', async () => {
    const a = await assign(h, tenant, { testId, externalUserId: 'all-types-touch' });
    const context = await browser.newContext({ viewport: VIEWPORTS.phone, hasTouch: true, isMobile: true });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(a.startUrl);
    await page.locator('#begin-button').tap();
    await page.getByRole('timer').waitFor();

    await page.locator(`${Q('ventricles')} .region-toggle[data-region-id="lv"]`).tap();
    await page.locator(`${Q('ventricles')} .region-toggle[data-region-id="rv"]`).tap();
    // A tap on the picture places a point where it lands: the left ventricle's middle (150, 150 of 400 × 300).
    const img = page.locator(`${Q('chambers')} .sp-image`);
    await img.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => (document.querySelector('.sp-image') as HTMLImageElement | null)?.naturalWidth === 400);
    const box = (await img.boundingBox())!;
    await page.touchscreen.tap(box.x + (150 / 400) * box.width, box.y + (150 / 300) * box.height);
    for (let pos = 0; pos < WALK.length; pos++) {
      const from = (await shownOrder(page)).indexOf(WALK[pos]!);
      for (let k = from; k > pos; k--) await page.locator(`${Q('walk-order')} .region-order li[data-item-id="${WALK[pos]}"] [data-region-move=up]`).tap();
    }
    for (const id of ['sat', 'purred']) await page.locator(`${Q('verbs')} .hot-phrase[data-hotspot-id="${id}"]`).tap();
    // A tap on the track, two thirds along, sets the value there (a tap on the resting thumb changes nothing).
    const range = page.locator(`${Q('boiling')} input[type=range]`);
    const track = (await range.boundingBox())!;
    await range.tap({ position: { x: track.width * (2 / 3), y: track.height / 2 } });
    for (const [first, second] of [['big', 'large'], ['small', 'little'], ['quick', 'fast']] as const) {
      await page.locator(`${Q('synonyms')} select.assoc-first`).selectOption(first);
      await page.locator(`${Q('synonyms')} select.assoc-second`).selectOption(second);
      await page.locator(`${Q('synonyms')} .assoc-add`).tap();
    }
    const mine = await values(a.assignmentId);
    await page.locator(`${Q('force')} input[type=text]`).tap();
    await page.keyboard.type(String(mine.m * mine.a));
    await page.locator(`${Q('verbs')} .hot-phrase[data-hotspot-id="sat"]`).focus();

    await expect.poll(() => page.locator('#answered-count').textContent(), { timeout: 20_000 }).toBe('7 of 7 answered');
    const stored = await storedAnswers(h, a.assignmentId);
    expect(stored).toMatchObject({ ventricles: ['rv', 'lv'], 'walk-order': WALK, verbs: ['sat', 'purred'], synonyms: [['big', 'large'], ['small', 'little'], ['quick', 'fast']] });
    const [point] = stored.chambers as Array<{ x: number; y: number }>;
    expect(Math.abs(point!.x - 150)).toBeLessThanOrEqual(3);
    expect(Math.abs(point!.y - 150)).toBeLessThanOrEqual(3);
    // The slider takes the value where the tap landed: a number on its scale of 0–150 in steps of 5.
    expect(typeof stored.boiling).toBe('number');
    expect((stored.boiling as number) % 5).toBe(0);
    await layout(page, 'phone');

    await page.locator('#open-submit').tap();
    await page.locator('#confirm-submit').tap();
    const score = await scoreOf(a.assignmentId);
    expect(score.sections.find((s) => s.sectionId === 'images')).toMatchObject({ points: 10, maxPoints: 12 });
    expect(score.sections.find((s) => s.sectionId === 'words')!.points).toBeGreaterThanOrEqual(7);
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 300_000);
});
