import { describe, expect, it } from 'vitest';
import type { Question } from '../catalog/schemas.js';
import { markQuestion, markAttempt } from './auto-mark.js';

/** Hand-computed partial credit for the three auto-marked new types, by the rules written in auto-mark.ts. */

const points = (q: Question, value: Parameters<typeof markQuestion>[1]) => {
  const m = markQuestion(q, value);
  if (m.kind !== 'auto') throw new Error('expected an automatic mark');
  return m.points;
};

const matching = (partialCredit?: boolean): Question => ({
  id: 'm',
  type: 'matching',
  prompt: 'Match',
  points: 6,
  stems: [
    { id: 'a', text: 'A' },
    { id: 'b', text: 'B' },
    { id: 'c', text: 'C' },
    { id: 'd', text: 'D' },
  ],
  choices: [
    { id: 'x', text: 'X' },
    { id: 'y', text: 'Y' },
    { id: 'z', text: 'Z' },
  ],
  // A choice serves several stems (x for a and d).
  correct: { a: 'x', b: 'y', c: 'z', d: 'x' },
  ...(partialCredit === undefined ? {} : { partialCredit }),
});

describe('matching', () => {
  it('gives points × correct stems ÷ stems by default', () => {
    const q = matching();
    expect(points(q, { a: 'x', b: 'y', c: 'z', d: 'x' })).toBe(6);
    // 3 of 4 stems right: 6 × 3 ÷ 4 = 4.5
    expect(points(q, { a: 'x', b: 'y', c: 'z', d: 'y' })).toBe(4.5);
    // 1 of 4 right, two unmatched: 6 × 1 ÷ 4 = 1.5
    expect(points(q, { a: 'x', b: 'z' })).toBe(1.5);
    expect(points(q, { a: 'y', b: 'x', c: 'x', d: 'z' })).toBe(0);
    expect(points(q, null)).toBe(0);
  });

  it('with partialCredit false gives all or nothing', () => {
    const q = matching(false);
    expect(points(q, { a: 'x', b: 'y', c: 'z', d: 'x' })).toBe(6);
    expect(points(q, { a: 'x', b: 'y', c: 'z', d: 'y' })).toBe(0);
    expect(points(q, { a: 'x', b: 'y', c: 'z' })).toBe(0);
  });

  it('with 3 stems keeps a third of the points to four decimals', () => {
    const q: Question = { ...(matching() as Extract<Question, { type: 'matching' }>), points: 1, stems: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }, { id: 'c', text: 'C' }], correct: { a: 'x', b: 'y', c: 'z' } };
    // 1 × 1 ÷ 3 = 0.33333… → 0.3333; 2 ÷ 3 → 0.6667
    expect(points(q, { a: 'x' })).toBe(0.3333);
    expect(points(q, { a: 'x', b: 'y' })).toBe(0.6667);
  });
});

const ordering = (partialCredit?: boolean): Question => ({
  id: 'o',
  type: 'ordering',
  prompt: 'Order',
  points: 5,
  items: ['one', 'two', 'three', 'four', 'five'].map((id) => ({ id, text: id })),
  ...(partialCredit === undefined ? {} : { partialCredit }),
});

describe('ordering', () => {
  it('is all or nothing by default', () => {
    const q = ordering();
    expect(points(q, ['one', 'two', 'three', 'four', 'five'])).toBe(5);
    // Four of five in place is still 0 without partial credit.
    expect(points(q, ['one', 'two', 'three', 'five', 'four'])).toBe(0);
    expect(points(q, null)).toBe(0);
  });

  it('with partialCredit gives points × items in their correct place ÷ items', () => {
    const q = ordering(true);
    // one, two, three in place (3 of 5): 5 × 3 ÷ 5 = 3
    expect(points(q, ['one', 'two', 'three', 'five', 'four'])).toBe(3);
    // Only "three" in place: 5 × 1 ÷ 5 = 1
    expect(points(q, ['five', 'four', 'three', 'two', 'one'])).toBe(1);
    // Every item shifted by one: none in place
    expect(points(q, ['two', 'three', 'four', 'five', 'one'])).toBe(0);
    expect(points(q, ['one', 'two', 'three', 'four', 'five'])).toBe(5);
  });
});

const blanks: Question = {
  id: 'f',
  type: 'fill_blanks',
  prompt: 'Fill in',
  points: 2,
  text: 'The {{city}} is the capital of {{country}}; its river is the {{river}}.',
  blanks: [
    { id: 'city', kind: 'text', acceptedAnswers: ['Paris', 'Paris city'] },
    { id: 'country', kind: 'choice', options: [{ id: 'fr', text: 'France' }, { id: 'de', text: 'Germany' }], correctOptionId: 'fr' },
    { id: 'river', kind: 'text', acceptedAnswers: ['Seine'], caseSensitive: true },
  ],
};

describe('fill_blanks', () => {
  it('splits the points equally across blanks: 3 blanks of a 2-point question are 0.6667 each', () => {
    // 2 ÷ 3 = 0.666… per blank
    expect(points(blanks, { city: 'paris' })).toBe(0.6667);
    // 2 × 2 ÷ 3 = 1.333…
    expect(points(blanks, { city: 'Paris', country: 'fr' })).toBe(1.3333);
    expect(points(blanks, { city: 'Paris', country: 'fr', river: 'Seine' })).toBe(2);
  });

  it('compares a text blank case-insensitively by default, with whitespace trimmed and collapsed', () => {
    expect(points(blanks, { city: '  PARIS   city ' })).toBe(0.6667);
    expect(points(blanks, { city: 'Lyon' })).toBe(0);
  });

  it('compares a caseSensitive blank exactly as to case', () => {
    expect(points(blanks, { river: 'seine' })).toBe(0);
    expect(points(blanks, { river: ' Seine ' })).toBe(0.6667);
  });

  it('marks a choice blank right only for the correct option id', () => {
    expect(points(blanks, { country: 'de' })).toBe(0);
    expect(points(blanks, { country: 'France' })).toBe(0);
    expect(points(blanks, { country: 'fr' })).toBe(0.6667);
  });

  it('gives 0 for no answer', () => {
    expect(points(blanks, null)).toBe(0);
    expect(points(blanks, {})).toBe(0);
  });
});

describe('an attempt of the new types', () => {
  it('sums the partial credit and counts a file_upload for a reviewer', () => {
    const upload: Question = { id: 'u', type: 'file_upload', prompt: 'Upload', points: 4, accept: ['application/pdf'] };
    const answers = new Map<string, any>([
      ['m', { a: 'x', b: 'y', c: 'z', d: 'y' }],
      ['o', ['one', 'two', 'three', 'five', 'four']],
      ['f', { city: 'paris', country: 'fr' }],
      ['u', { fileId: 'file_1' }],
    ]);
    const marked = markAttempt([matching(), ordering(true), blanks, upload], answers);
    // 4.5 + 3 + 1.3333 = 8.8333; max 6 + 5 + 2 + 4 = 17
    expect(marked).toMatchObject({ autoPoints: 8.8333, maxPoints: 17, autoMarkableCount: 3, manualCount: 1 });
    expect(marked.items.find((i) => i.questionId === 'u')).toMatchObject({ kind: 'manual' });
  });
});
