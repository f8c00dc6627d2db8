import { describe, expect, it } from 'vitest';
import { PLAIN } from '../../interchange/qti-writer.js';
import { fillBlanksType } from './fill-blanks.js';
import type { FillBlanksQuestion } from './schema.js';

// Placed in the text in the other order than listed, so reading order and list order differ.
const q: FillBlanksQuestion = {
  type: 'fill_blanks',
  id: 'q1',
  prompt: 'Complete the sentence.',
  points: 2,
  text: 'An acid and a base give {{salt}} and {{product}}.',
  blanks: [
    { id: 'product', kind: 'text', acceptedAnswers: ['water', 'H2O'] },
    { id: 'salt', kind: 'choice', options: [{ id: 'a', text: 'a salt' }, { id: 'b', text: 'a metal' }], correctOptionId: 'a' },
  ],
};
const write = (resp: string) => fillBlanksType.qti!.write(q, resp, PLAIN);

describe('the fill_blanks definition', () => {
  it('splits the points across blanks, comparing text as short_text does, and keeps only filled blanks in their order', () => {
    expect(fillBlanksType.mark!(q, { product: ' Water ', salt: 'b' })).toEqual({ kind: 'auto', points: 1 });
    expect(fillBlanksType.answer.check(q, { salt: 'a', product: '  ' })).toEqual({ ok: true, value: { salt: 'a' } });
    expect(fillBlanksType.answer.check(q, { salt: 'c' })).toEqual({ ok: false, message: '"c" is not an option of blank "salt"' });
    expect(fillBlanksType.simulate.correct(q)).toEqual({ product: 'water', salt: 'a' });
  });

  it('names the blanks of its one-line answer as the page does, in reading order', () => {
    expect(fillBlanksType.answerText(q, { product: 'water', salt: 'b' })).toBe('Blank 1: a metal; Blank 2: water');
  });

  it('names its QTI responses by the blank ids, prefixed only when given a prefix (a composite part)', () => {
    expect(write('').decls.map((d) => d.id)).toEqual(['product', 'salt']);
    expect(write('p2').decls.map((d) => d.id)).toEqual(['p2_product', 'p2_salt']);
    expect(write('p2').body).toContain('<qti-inline-choice-interaction response-identifier="p2_salt">');
    expect(fillBlanksType.qti!.summed!(q, 'p2').join('')).toContain('<qti-map-response identifier="p2_product"/>');
  });
});
