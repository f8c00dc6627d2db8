import { describe, expect, it } from 'vitest';
import type { Question } from '../catalog/schemas.js';
import { markQuestion } from './auto-mark.js';

type ShortText = Extract<Question, { type: 'short_text' }>;
const q = (acceptedAnswers: ShortText['acceptedAnswers'], over: Partial<ShortText> = {}): ShortText => ({
  id: 'q1',
  type: 'short_text',
  prompt: 'Name it',
  points: 4,
  acceptedAnswers,
  caseSensitive: false,
  ...over,
});
const points = (question: ShortText, value: string) => markQuestion(question, value);
const auto = (n: number) => ({ kind: 'auto', points: n });

describe('short_text entries with their own points', () => {
  it('plain strings keep the old rule: full points, the question deciding case, whitespace collapsed', () => {
    const question = q(['Paris', 'City of Light']);
    expect(points(question, '  city  of   LIGHT ')).toEqual(auto(4));
    expect(points(question, 'Lyon')).toEqual(auto(0));
    expect(points({ ...question, caseSensitive: true }, 'paris')).toEqual(auto(0));
  });

  it('the best matching entry wins, whatever its place in the list', () => {
    const question = q([{ text: 'colour', points: 1 }, { text: 'COLOUR', points: 3, caseSensitive: true }, { text: 'colou', points: 0.5, pattern: 'colou?r?' }]);
    // "COLOUR" matches the first (any case, 1) and the second (exact, 3): 3.
    expect(points(question, 'COLOUR')).toEqual(auto(3));
    expect(points(question, 'Colour')).toEqual(auto(1));
    expect(points(question, 'colo')).toEqual(auto(0.5));
  });

  it('an entry with no points is worth the question; entry points are capped at the question', () => {
    // Over-the-top points are refused when a test is saved; marking still never gives more than the question.
    const question = q([{ text: 'a' }, { text: 'b', points: 9 }]);
    expect(points(question, 'A')).toEqual(auto(4));
    expect(points(question, 'b')).toEqual(auto(4));
  });

  it('case per entry: an entry overrides the question, and the question is the default for entries', () => {
    const question = q(['Au', { text: 'GOLD', caseSensitive: true, points: 2 }, { text: 'or', points: 1 }], { caseSensitive: true });
    expect(points(question, 'au')).toEqual(auto(0));
    expect(points(question, 'gold')).toEqual(auto(0));
    expect(points(question, 'GOLD')).toEqual(auto(2));
    expect(points(question, 'OR')).toEqual(auto(0));
    expect(points(question, 'or')).toEqual(auto(1));
  });

  it('a pattern entry matches the whole trimmed answer, capitals as written, whatever the question says', () => {
    const question = q(['Paris', { text: 'colour', points: 2, pattern: '[Cc]olou?r' }]);
    expect(points(question, ' Color ')).toEqual(auto(2));
    expect(points(question, 'colour')).toEqual(auto(2));
    expect(points(question, 'COLOR')).toEqual(auto(0));
    expect(points(question, 'my colour')).toEqual(auto(0));
    expect(points(question, 'colours')).toEqual(auto(0));
  });

  it('a matching entry worth 0 gives 0 and keeps the answer from AI marking; no match waits for the model', () => {
    const ai = { aiMarking: { mode: 'suggest' as const, minConfidence: 0.8 }, criteria: [{ criterion: 'c', points: 4, description: 'd' }] };
    const question = q(['Paris', { text: 'Lyon', points: 0 }], ai);
    expect(points(question, 'lyon')).toEqual(auto(0));
    expect(points(question, 'Marseille')).toEqual({ kind: 'manual' });
    expect(points(question, '  ')).toEqual(auto(0));
  });

  it('a pathological pattern against a long answer is marked at once (linear-time matching)', () => {
    const question = q(['x', { text: 'ab', points: 1, pattern: '(a+)+b' }, { text: 'aa', points: 1, pattern: '(a|aa)*c?(a|a)*(a*)*' }]);
    const started = performance.now();
    expect(points(question, `${'a'.repeat(5_000)}!`)).toEqual(auto(0));
    expect(points(question, 'a'.repeat(5_000))).toEqual(auto(1));
    // A backtracking engine takes years on (a+)+b against forty a's; the bound only allows for a loaded machine.
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('the example in docs/test-format.md marks as the page says', () => {
    const question = q(['colour', { text: 'color', points: 1 }, { text: 'COLOUR', caseSensitive: true, points: 1.5 }, { text: 'colr', pattern: '[Cc]olo?u?r', points: 0.5 }], { points: 2 });
    expect(['Color', 'COLOUR', 'Colr'].map((v) => points(question, v))).toEqual([auto(1), auto(2), auto(0.5)]);
  });
});
