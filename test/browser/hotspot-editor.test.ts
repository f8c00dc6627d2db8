import { describe, expect, it } from 'vitest';
import { HEART_SVG } from '../helpers/image-questions.js';
import { hasBrowser, requireBrowser } from './browser-env.js';
import { editorRig, newQuestionOfType, press, question, saveAndReadFirstQuestion, typeInto } from './editor-steps.js';

/**
 * The form editor's hotspot fields in Chromium, by keyboard: an author picks
 * the Hotspot type, uploads the image with Add image (the Image field takes
 * its reference, the description its alt text, and the drawing preview shows
 * it), enters two regions by their coordinates and ticks the correct one,
 * leaving the image's size out; the draft saves with no problem and holds
 * exactly that question.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

run('the hotspot question in the form editor', () => {
  const rig = editorRig();

  it('uploads the image and authors regions and the key by keyboard, and saves them', async () => {
    const { h, browser, origin, author } = rig;
    const s = await newQuestionOfType(browser, h, origin, author, 'The heart', 'hotspot');
    const { page } = s;
    const q = () => question(page, 1);
    await typeInto(q().getByLabel('Prompt'), 'Choose the arch at the top.');
    const addImage = page.getByRole('button', { name: "Add image to the question's image" });
    const panel = q().locator('.image-control').filter({ has: addImage });
    await press(addImage);
    await panel.getByLabel('Image file').setInputFiles({ name: 'heart.svg', mimeType: 'image/svg+xml', buffer: Buffer.from(HEART_SVG) });
    await typeInto(panel.getByLabel('Alt text'), 'A heart with an arch at the top');
    await press(panel.getByRole('button', { name: 'Upload image' }));
    await expect.poll(() => q().getByLabel('Image', { exact: true }).inputValue(), { timeout: 10_000 }).toMatch(/^asset:ast_[0-9A-Za-z]+$/);
    const image = await q().getByLabel('Image', { exact: true }).inputValue();
    expect(await q().getByLabel('Image description').inputValue()).toBe('A heart with an arch at the top');
    await expect.poll(() => q().locator('.region-draw-box img').evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBe(400);

    await typeInto(q().getByLabel('Region 1 label', { exact: true }), 'Upper left chamber');
    await typeInto(q().getByLabel('Region 1 coordinates', { exact: true }), '60, 60, 180, 150');
    await typeInto(q().getByLabel('Region 2 label', { exact: true }), 'Arch at the top');
    await typeInto(q().getByLabel('Region 2 coordinates', { exact: true }), '175, 5, 225, 55');
    await q().getByLabel('Region 2 is correct').focus();
    await page.keyboard.press('Space');

    const saved = await saveAndReadFirstQuestion(h, s);
    expect(saved).toEqual({
      type: 'hotspot',
      prompt: 'Choose the arch at the top.',
      points: 1,
      image,
      imageAlt: 'A heart with an arch at the top',
      regions: [
        { id: 'r1', label: 'Upper left chamber', shape: 'rect', coords: [60, 60, 180, 150] },
        { id: 'r2', label: 'Arch at the top', shape: 'rect', coords: [175, 5, 225, 55] },
      ],
      correctRegionIds: ['r2'],
    });
    expect(s.problems).toEqual([]);
    await s.close();
  }, 180_000);
});
