import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deliver, drawDelivery, plannedTotals, scrambleItems, shuffleOptions } from './delivery.js';
import type { Question } from './schemas.js';
import type { StoredSection } from './sections.js';

const choice = (id: string, points = 1): Question => ({
  id,
  type: 'single_choice',
  prompt: id,
  points,
  options: [
    { id: 'a', text: 'A' },
    { id: 'b', text: 'B' },
    { id: 'c', text: 'C' },
    { id: 'none', text: 'None of these', fixed: true },
  ],
  correctOptionId: 'a',
  shuffleOptions: true,
});
const ordering: Question = {
  id: 'ord',
  type: 'ordering',
  prompt: 'Order',
  points: 2,
  items: [
    { id: 'i1', text: 'one' },
    { id: 'i2', text: 'two' },
  ],
};
const pool = ['p1', 'p2', 'p3', 'p4', 'p5'].map((id) => choice(id, 2));
const version = {
  questions: [choice('intro'), ...pool, ordering],
  sections: [
    { id: 's1', title: 'Warm-up', instructions: null, shuffleQuestions: false, draw: null, questionIds: ['intro'] },
    { id: 's2', title: 'Pool', instructions: null, shuffleQuestions: true, draw: 2, questionIds: pool.map((q) => q.id) },
    { id: 's3', title: 'Order', instructions: null, shuffleQuestions: false, draw: null, questionIds: ['ord'] },
  ] satisfies StoredSection[],
};

describe('a candidate delivery', () => {
  it('draws n of a pool, keeps fixed options in place and never shows an ordering correct', () => {
    for (let run = 0; run < 200; run++) {
      const d = drawDelivery(version, randomInt);
      expect(d.sections.map((s) => s.sectionId)).toEqual(['s1', 's2', 's3']);
      const drawn = d.sections[1]!.questionIds;
      expect(drawn).toHaveLength(2);
      expect(new Set(drawn).size).toBe(2);
      for (const id of drawn) expect(pool.map((q) => q.id)).toContain(id);
      for (const order of Object.values(d.optionOrder)) {
        expect(order[3]).toBe('none');
        expect([...order].sort()).toEqual(['a', 'b', 'c', 'none']);
      }
      expect(d.itemOrder.ord).toEqual(['i2', 'i1']);
      expect(deliver(version, d).questions.map((q) => q.id)).toEqual(['intro', ...drawn, 'ord']);
    }
  });

  it('a flat test without a stored delivery gives every question in order', () => {
    const flat = { questions: [choice('x'), choice('y')], sections: null };
    const d = deliver(flat, null);
    expect(d.questions.map((q) => q.id)).toEqual(['x', 'y']);
    expect(d.delivery.sections).toEqual([{ sectionId: 'main', questionIds: ['x', 'y'] }]);
  });

  it('plans the counts a candidate will get: a pool counts its draw', () => {
    expect(plannedTotals(version)).toEqual({ questions: 4, points: 1 + 2 * 2 + 2 });
  });

  it('scrambles any list of two or more items away from the correct order, and shuffles only unfixed options', () => {
    const ids = ['a', 'b', 'c', 'd'];
    for (let run = 0; run < 500; run++) expect(scrambleItems(ids, randomInt)).not.toEqual(ids);
    // A source that always answers 0 would leave the order as it is: the fallback still scrambles.
    expect(scrambleItems(ids, () => 0)).not.toEqual(ids);
    expect(shuffleOptions([{ id: 'x', fixed: true }, { id: 'y' }], randomInt)).toEqual(['x', 'y']);
  });
});
