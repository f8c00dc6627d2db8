import { describe, expect, it } from 'vitest';
import { plainTexts } from '../../content/page-texts.js';
import { itemXml, PLAIN } from '../../interchange/qti-export-items.js';
import { mapItem } from '../../interchange/qti-items.js';
import { parseXml } from '../../interchange/xml.js';
import { questionType, questionTypeForInteraction, questionTypeLabel } from '../registry.js';
import { orderingType } from './ordering.js';
import type { OrderingQuestion } from './schema.js';

// Three rivers, longest first; partial credit gives a point for each in its place.
const q: OrderingQuestion = {
  type: 'ordering',
  id: 'q1',
  prompt: 'Longest first',
  points: 3,
  items: [{ id: 'i1', text: 'Nile' }, { id: 'i2', text: 'Amazon' }, { id: 'i3', text: 'Yangtze' }],
  partialCredit: true,
};
const shown = { optionOrder: {}, itemOrder: { q1: ['i3', 'i1', 'i2'] } };

describe('the ordering definition', () => {
  it('is the registry’s ordering type, read for an order interaction and labelled Ordering', () => {
    expect(questionType('ordering')).toBe(orderingType);
    expect(questionTypeForInteraction('qti-order-interaction')).toBe(orderingType);
    expect(questionTypeLabel('ordering')).toBe('Ordering');
    expect(orderingType.shuffledItems!(q)).toEqual(['i1', 'i2', 'i3']);
  });

  it('takes every item id once as the answer and refuses anything else by name', () => {
    expect(orderingType.answer.check(q, ['i2', 'i1', 'i3'])).toEqual({ ok: true, value: ['i2', 'i1', 'i3'] });
    expect(orderingType.answer.check(q, 'i1')).toEqual({ ok: false, message: 'must be an array of item ids or null' });
    expect(orderingType.answer.check(q, ['i1', 'i1', 'i3'])).toEqual({ ok: false, message: 'must list each of the 3 item ids exactly once (a permutation)' });
    expect(orderingType.answer.check(q, ['i1', 'i2'])).toEqual({ ok: false, message: 'must list each of the 3 item ids exactly once (a permutation)' });
  });

  it('marks a point per item in place with partial credit, else all or nothing', () => {
    expect(orderingType.mark!(q, ['i1', 'i3', 'i2'])).toEqual({ kind: 'auto', points: 1 });
    expect(orderingType.mark!({ ...q, partialCredit: false }, ['i1', 'i3', 'i2'])).toEqual({ kind: 'auto', points: 0 });
    expect(orderingType.mark!({ ...q, partialCredit: false }, ['i1', 'i2', 'i3'])).toEqual({ kind: 'auto', points: 3 });
    expect(orderingType.simulate.correct(q)).toEqual(['i1', 'i2', 'i3']);
  });

  it('shows the drawn order until the student moves an item, then the saved one; staff see each item in place or not', () => {
    const first = orderingType.page(q, { id: 'q1', where: 'question 1', value: null, texts: plainTexts, shown }).value;
    expect(first).toContain('data-ordered="no"');
    expect([...first.matchAll(/data-item-id="(i\d)"/g)].map((m) => m[1])).toEqual(['i3', 'i1', 'i2']);
    const saved = orderingType.page(q, { id: 'q1', where: 'question 1', value: ['i2', 'i1', 'i3'], texts: plainTexts, shown }).value;
    expect(saved).toContain('data-ordered="yes"');
    expect([...saved.matchAll(/data-item-id="(i\d)"/g)].map((m) => m[1])).toEqual(['i2', 'i1', 'i3']);
    const review = orderingType.review(q, ['i2', 'i1', 'i3'], { texts: plainTexts }).value;
    expect(review).toContain('<li>Yangtze <span class="badge badge-right">in its correct place</span></li>');
    expect(review).toContain('<li>Amazon <span class="badge badge-wrong">not in place</span> <span class="hint">(belongs at 2)</span></li>');
    expect(orderingType.answerText(q, ['i2', 'i1', 'i3'])).toBe('Amazon; Nile; Yangtze');
  });

  it('writes an order interaction that reads back as the same question, partial credit and all or nothing', () => {
    for (const partialCredit of [true, false]) {
      const question = { ...q, partialCredit };
      const mapped = mapItem(parseXml(itemXml(question, PLAIN), 'q1.xml'));
      expect(mapped).toMatchObject({ ok: true, interaction: 'order-interaction' });
      const { id: _id, ...rest } = question;
      expect(mapped.ok && mapped.question).toEqual(rest);
    }
  });
});
