import { describe, expect, it } from 'vitest';
import { plainTexts } from '../../content/page-texts.js';
import { associateType } from './associate.js';
import type { AssociateQuestion } from './rules.js';

const q: AssociateQuestion = {
  type: 'associate',
  id: 'q1',
  prompt: 'Pair the opposites.',
  points: 2,
  items: [
    { id: 'hot', text: 'Hot' },
    { id: 'cold', text: 'Cold' },
    { id: 'up', text: 'Up & away' },
    { id: 'down', text: 'Down' },
  ],
  pairs: [
    { a: 'hot', b: 'cold' },
    { a: 'up', b: 'down' },
  ],
  maxAssociations: 2,
};
const shown = { optionOrder: {}, itemOrder: {} };
const page = (value: Parameters<typeof associateType.page>[1]['value'], question = q) =>
  associateType.page(question, { id: 'q3', where: 'question 3', value, texts: plainTexts, shown }).toString();

describe('associate: the student page', () => {
  it('names its controls: two labelled selects of every item, Add pair, the limit in words', () => {
    const out = page(null);
    expect(out).toContain('<label for="q3-first">First item</label><select id="q3-first" class="assoc-first"><option value="">Choose…</option><option value="hot">Hot</option>');
    expect(out).toContain('<label for="q3-second">Second item</label><select id="q3-second" class="assoc-second">');
    expect(out).toContain('<button type="button" class="button assoc-add">Add pair</button>');
    expect(out).toContain('You can make at most 2 pairs.');
    expect(out).toContain('Your pairs: <span class="assoc-count">none yet</span>');
    expect(out).toContain('<p class="assoc-status" role="status" aria-live="polite"></p>');
    // Texts are escaped.
    expect(out).toContain('<option value="up">Up &amp; away</option>');
  });

  it('lists the saved pairs, each with a Remove button named by both items, and says when no more can be made', () => {
    const out = page([['hot', 'cold'], ['up', 'down']]);
    expect(out).toContain('<li class="assoc-pair" data-a="hot" data-b="cold">');
    expect(out).toContain('aria-label="Remove pair: Up &amp; away and Down">Remove</button>');
    expect(out).toContain('<span class="assoc-count">2 of at most 2</span>');
    expect(out).toContain('class="button assoc-add" aria-disabled="true"');
  });

  it('has no limit sentence without maxAssociations, and drops a saved pair that names no item', () => {
    const { maxAssociations: _, ...open } = q;
    const out = page([['hot', 'gone']], open);
    expect(out).not.toContain('at most');
    expect(out).not.toContain('assoc-pair"');
    expect(out).toContain('none yet');
  });
});
