import { describe, expect, it } from 'vitest';
import { hasBrowser, requireBrowser } from './browser-env.js';
import { arrowTo, editorRig, newQuestionOfType, press, question, saveAndReadFirstQuestion, typeInto } from './editor-steps.js';

/**
 * The form editor's associate fields in Chromium, by keyboard: an author
 * picks the Associate type, writes the items, keys two pairs with the pair
 * selects and sets Max associations; the draft saves with no problem and
 * holds exactly that question.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

run('the associate question in the form editor', () => {
  const rig = editorRig();

  it('authors items, keyed pairs and a limit by keyboard and saves them', async () => {
    const { h, browser, origin, author } = rig;
    const s = await newQuestionOfType(browser, h, origin, author, 'Opposites', 'associate');
    const { page } = s;
    const q = question(page, 1);
    await typeInto(q.getByLabel('Prompt'), 'Pair the opposites.');
    await typeInto(q.getByLabel('Item 1', { exact: true }), 'hot');
    await typeInto(q.getByLabel('Item 2', { exact: true }), 'cold');
    await press(q.getByRole('button', { name: 'Add item' }));
    await typeInto(question(page, 1).getByLabel('Item 3', { exact: true }), 'up');
    await press(question(page, 1).getByRole('button', { name: 'Add item' }));
    await typeInto(question(page, 1).getByLabel('Item 4', { exact: true }), 'down');
    // Pair 1 starts as items 1 and 2; pair 2 is chosen with the arrow keys.
    await press(question(page, 1).getByRole('button', { name: 'Add pair' }));
    await arrowTo(question(page, 1).getByLabel('Pair 2 first item'), 'i3');
    await arrowTo(question(page, 1).getByLabel('Pair 2 second item'), 'i4');
    await typeInto(question(page, 1).getByLabel('Max associations'), '2');

    const saved = await saveAndReadFirstQuestion(h, s);
    expect(saved).toMatchObject({
      type: 'associate',
      prompt: 'Pair the opposites.',
      items: [{ id: 'i1', text: 'hot' }, { id: 'i2', text: 'cold' }, { id: 'i3', text: 'up' }, { id: 'i4', text: 'down' }],
      pairs: [{ a: 'i1', b: 'i2' }, { a: 'i3', b: 'i4' }],
      maxAssociations: 2,
    });
    expect(s.problems).toEqual([]);
    await s.close();
  }, 180_000);
});
