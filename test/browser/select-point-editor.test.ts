import { describe, expect, it } from 'vitest';
import { HEART_SVG } from '../helpers/image-questions.js';
import { hasBrowser, requireBrowser } from './browser-env.js';
import { arrowTo, checkEditorWidths, editorRig, newQuestionOfType, press, question, saveAndReadFirstQuestion, typeInto } from './editor-steps.js';

/**
 * The form editor's select point fields in Chromium, by keyboard: an author
 * picks the Select point type, uploads the image with Add image (its alt
 * text becomes the image's description), enters three areas — a rectangle,
 * a circle and a polygon — by their coordinates with a label and points
 * each, and sets Max points; the draft saves with no problem and holds
 * exactly that question, and the reopened editor passes axe and fits 1280
 * and 360 px.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

run('the select point question in the form editor', () => {
  const rig = editorRig();

  it('uploads the image and authors areas, their labels and points by keyboard, and saves them', async () => {
    const { h, browser, origin, author } = rig;
    const s = await newQuestionOfType(browser, h, origin, author, 'The heart', 'select_point');
    const { page } = s;
    const q = () => question(page, 1);
    await typeInto(q().getByLabel('Prompt'), 'Mark an atrium and the aorta.');
    await typeInto(q().getByLabel('Points', { exact: true }), '2');

    // The question's own image: Add image opens the panel with the focus on the file field.
    // (The prompt has its own Add image panel, with the same field names.)
    const addImage = page.getByRole('button', { name: "Add image to the question's image" });
    const panel = q().locator('.image-control').filter({ has: addImage });
    await press(addImage);
    expect(await panel.getByLabel('Image file').evaluate((e) => e === document.activeElement)).toBe(true);
    await panel.getByLabel('Image file').setInputFiles({ name: 'heart.svg', mimeType: 'image/svg+xml', buffer: Buffer.from(HEART_SVG) });
    await typeInto(panel.getByLabel('Alt text'), 'A heart: four chambers and the aorta above them');
    await press(panel.getByRole('button', { name: 'Upload image' }));
    await expect.poll(() => q().getByLabel('Image', { exact: true }).inputValue(), { timeout: 10_000 }).toMatch(/^asset:ast_[0-9A-Za-z]+$/);
    const image = await q().getByLabel('Image', { exact: true }).inputValue();
    expect(await q().getByLabel('Image description').inputValue()).toBe('A heart: four chambers and the aorta above them');
    const asset = await h.pool.query('SELECT content_type FROM assets WHERE id = $1', [image.slice('asset:'.length)]);
    expect(asset.rows).toEqual([{ content_type: 'image/svg+xml' }]);

    // Area 1 is there from the start, a rectangle.
    await typeInto(q().getByLabel('Area 1 label', { exact: true }), 'Left atrium');
    await typeInto(q().getByLabel('Area 1 coordinates', { exact: true }), '60, 60, 180, 150');
    await typeInto(q().getByLabel('Area 1 points', { exact: true }), '1');
    await press(q().getByRole('button', { name: 'Add area' }));
    expect(await q().getByLabel('Area 2 label', { exact: true }).evaluate((e) => e === document.activeElement)).toBe(true);
    await page.keyboard.type('Aorta');
    await arrowTo(q().getByLabel('Area 2 shape', { exact: true }), 'circle');
    await typeInto(q().getByLabel('Area 2 coordinates', { exact: true }), '200 30 25');
    await typeInto(q().getByLabel('Area 2 points', { exact: true }), '1');
    await press(q().getByRole('button', { name: 'Add area' }));
    await page.keyboard.type('Left ventricle');
    await arrowTo(q().getByLabel('Area 3 shape', { exact: true }), 'poly');
    await typeInto(q().getByLabel('Area 3 coordinates', { exact: true }), '60,170, 190,170, 200,330, 90,300');
    await typeInto(q().getByLabel('Area 3 points', { exact: true }), '0');
    await typeInto(q().getByLabel('Max points'), '2');

    const saved = await saveAndReadFirstQuestion(h, s);
    expect(saved).toEqual({
      type: 'select_point',
      prompt: 'Mark an atrium and the aorta.',
      points: 2,
      image,
      imageAlt: 'A heart: four chambers and the aorta above them',
      areas: [
        { id: 'a1', label: 'Left atrium', shape: 'rect', coords: [60, 60, 180, 150], points: 1 },
        { id: 'a2', label: 'Aorta', shape: 'circle', coords: [200, 30, 25], points: 1 },
        { id: 'a3', label: 'Left ventricle', shape: 'poly', coords: [60, 170, 190, 170, 200, 330, 90, 300], points: 0 },
      ],
      maxPoints: 2,
    });
    expect(s.problems).toEqual([]);
    await s.close();

    await checkEditorWidths(browser, h, origin, author, s.testId, 'test-editor-select-point', async (p) => {
      expect(await question(p, 1).getByLabel('Area 2 shape', { exact: true }).inputValue()).toBe('circle');
      expect(await question(p, 1).getByLabel('Area 3 coordinates', { exact: true }).inputValue()).toBe('60, 170, 190, 170, 200, 330, 90, 300');
    });
  }, 180_000);
});
