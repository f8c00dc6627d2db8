import { describe, expect, it } from 'vitest';
import { hasBrowser, requireBrowser } from './browser-env.js';
import { checkEditorWidths, editorRig, newQuestionOfType, question, saveAndReadFirstQuestion, typeInto } from './editor-steps.js';

/**
 * The form editor's slider fields in Chromium, by keyboard: an author picks
 * the Slider type and sets the scale (lowest, highest, step), the correct
 * value and the tolerance; the draft saves with no problem and holds exactly
 * that question, and the reopened editor passes axe and fits 1280 and 360 px.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

run('the slider question in the form editor', () => {
  const rig = editorRig();

  it('authors the scale, the correct value and the tolerance by keyboard and saves them', async () => {
    const { h, browser, origin, author } = rig;
    const s = await newQuestionOfType(browser, h, origin, author, 'Temperatures', 'slider');
    const q = question(s.page, 1);
    await typeInto(q.getByLabel('Prompt'), 'Set the freezing point of water in °C.');
    await typeInto(q.getByLabel('Points', { exact: true }), '2');
    // Every value differs from the type's defaults (0 to 100 in steps of 1, 50, tolerance 0), a negative and fractions among them.
    await typeInto(q.getByLabel('Lowest value'), '-20');
    await typeInto(q.getByLabel('Highest value'), '40');
    await typeInto(q.getByLabel('Step', { exact: true }), '0.5');
    await typeInto(q.getByLabel('Correct answer'), '0');
    await typeInto(q.getByLabel('Tolerance'), '1.5');

    const saved = await saveAndReadFirstQuestion(h, s);
    expect(saved).toEqual({ type: 'slider', prompt: 'Set the freezing point of water in °C.', points: 2, min: -20, max: 40, step: 0.5, correct: 0, tolerance: 1.5 });
    expect(s.problems).toEqual([]);
    await s.close();

    await checkEditorWidths(browser, h, origin, author, s.testId, 'test-editor-slider', async (page) => {
      expect(await question(page, 1).getByLabel('Step', { exact: true }).inputValue()).toBe('0.5');
      expect(await question(page, 1).getByLabel('Tolerance').inputValue()).toBe('1.5');
    });
  }, 180_000);
});
