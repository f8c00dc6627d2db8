import { describe, expect, it } from 'vitest';
import { hasBrowser, requireBrowser } from './browser-env.js';
import { checkEditorWidths, editorRig, newQuestionOfType, press, question, saveAndReadFirstQuestion, typeInto } from './editor-steps.js';

/**
 * The form editor's hot text fields in Chromium, by keyboard: an author
 * picks the Hot text type, writes the passage, places three hotspots with
 * Add hotspot (two at the end of the text, one at the cursor moved back into
 * it), writes their phrases, ticks the two correct ones and sets Most
 * phrases to choose; the draft saves with no problem and holds exactly that
 * question, and the reopened editor passes axe and fits 1280 and 360 px.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

run('the hot text question in the form editor', () => {
  const rig = editorRig();

  it('authors the passage, its phrases and the key by keyboard and saves them', async () => {
    const { h, browser, origin, author } = rig;
    const s = await newQuestionOfType(browser, h, origin, author, 'Verbs', 'hot_text');
    const { page } = s;
    const q = () => question(page, 1);
    await typeInto(q().getByLabel('Prompt'), 'Choose the verbs.');
    // Add hotspot with the cursor at the end of the text: the new hotspot goes there, and the focus to its phrase.
    await typeInto(q().getByLabel('Text with hotspots'), 'The ');
    await press(q().getByRole('button', { name: 'Add hotspot' }));
    await page.keyboard.type('dog');
    expect(await q().getByLabel('Hotspot 1 phrase').evaluate((e) => e === document.activeElement)).toBe(true);
    const text = q().getByLabel('Text with hotspots');
    await text.focus();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' ');
    await press(q().getByRole('button', { name: 'Add hotspot' }));
    await page.keyboard.type('barked');
    // The rest of the sentence, then the cursor back between the two spaces for the third hotspot.
    await text.focus();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' and  all night.');
    for (let i = 0; i < ' all night.'.length; i++) await page.keyboard.press('ArrowLeft');
    await press(q().getByRole('button', { name: 'Add hotspot' }));
    await page.keyboard.type('howled');
    expect(await q().getByLabel('Text with hotspots').inputValue()).toBe('The {{h1}} {{h2}} and {{h3}} all night.');

    await q().getByLabel('Hotspot 2 is correct').focus();
    await page.keyboard.press('Space');
    await q().getByLabel('Hotspot 3 is correct').focus();
    await page.keyboard.press('Space');
    await typeInto(q().getByLabel('Most phrases to choose'), '2');

    const saved = await saveAndReadFirstQuestion(h, s);
    expect(saved).toEqual({
      type: 'hot_text',
      prompt: 'Choose the verbs.',
      points: 1,
      text: 'The {{h1}} {{h2}} and {{h3}} all night.',
      hotspots: [{ id: 'h1', phrase: 'dog' }, { id: 'h2', phrase: 'barked' }, { id: 'h3', phrase: 'howled' }],
      correct: ['h2', 'h3'],
      maxChoices: 2,
    });
    expect(s.problems).toEqual([]);
    await s.close();

    await checkEditorWidths(browser, h, origin, author, s.testId, 'test-editor-hot-text', async (p) => {
      expect(await question(p, 1).getByLabel('Hotspot 3 phrase').inputValue()).toBe('howled');
      expect(await question(p, 1).getByLabel('Hotspot 2 is correct').isChecked()).toBe(true);
      expect(await question(p, 1).getByLabel('Hotspot 1 is correct').isChecked()).toBe(false);
    });
  }, 180_000);
});
