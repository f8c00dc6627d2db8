import { describe, expect, it } from 'vitest';
import { markAttempt, markQuestion, normaliseText, parseNumericAnswer } from './auto-mark.js';
import { makeScore, submissionScore } from './score.js';
import type { Question } from '../catalog/schemas.js';

const single: Question = { id: 's', type: 'single_choice', prompt: 'p', points: 2, options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }], correctOptionId: 'b' };
const multi = (partialCredit: boolean): Question => ({
  id: 'm',
  type: 'multiple_choice',
  prompt: 'p',
  points: 4,
  options: ['a', 'b', 'c', 'd'].map((id) => ({ id, text: id })),
  correctOptionIds: ['a', 'c'],
  partialCredit,
});
const short = (caseSensitive: boolean): Question => ({ id: 't', type: 'short_text', prompt: 'p', points: 1, acceptedAnswers: ['New  York', 'NYC'], caseSensitive });
const numeric = (answer: number, tolerance: number): Question => ({ id: 'n', type: 'numeric', prompt: 'p', points: 3, answer, tolerance });
const essay: Question = { id: 'e', type: 'essay', prompt: 'p', points: 10 };

const points = (q: Question, v: Parameters<typeof markQuestion>[1]) => {
  const m = markQuestion(q, v);
  return m.kind === 'auto' ? m.points : 'manual';
};

describe('auto-marking single_choice', () => {
  it('gives full points for the correct option and 0 for another, none, or a malformed value', () => {
    expect(points(single, 'b')).toBe(2);
    expect(points(single, 'a')).toBe(0);
    expect(points(single, null)).toBe(0);
    expect(points(single, undefined)).toBe(0);
    expect(points(single, ['b'])).toBe(0);
  });
});

describe('auto-marking multiple_choice', () => {
  it('without partial credit gives points only for exactly the correct set', () => {
    expect(points(multi(false), ['a', 'c'])).toBe(4);
    expect(points(multi(false), ['c', 'a'])).toBe(4);
    expect(points(multi(false), ['a'])).toBe(0);
    expect(points(multi(false), ['a', 'c', 'd'])).toBe(0);
    expect(points(multi(false), null)).toBe(0);
  });
  it('with partial credit gives points × (right − wrong) / correct, never below 0', () => {
    expect(points(multi(true), ['a', 'c'])).toBe(4);
    expect(points(multi(true), ['a'])).toBe(2);
    expect(points(multi(true), ['a', 'b'])).toBe(0);
    expect(points(multi(true), ['a', 'c', 'b'])).toBe(2);
    expect(points(multi(true), ['a', 'b', 'c', 'd'])).toBe(0);
    expect(points(multi(true), ['b', 'd'])).toBe(0);
    expect(points(multi(true), [])).toBe(0);
  });
  it('keeps thirds to four decimals', () => {
    const q: Question = { ...(multi(true) as Extract<Question, { type: 'multiple_choice' }>), points: 1, correctOptionIds: ['a', 'b', 'c'] };
    expect(points(q, ['a'])).toBe(0.3333);
  });
});

describe('auto-marking short_text', () => {
  it('trims, collapses inner whitespace and ignores case by default', () => {
    expect(points(short(false), '  new york ')).toBe(1);
    expect(points(short(false), 'NEW\t\n york')).toBe(1);
    expect(points(short(false), 'nyc')).toBe(1);
    expect(points(short(false), 'Newyork')).toBe(0);
    expect(points(short(false), '   ')).toBe(0);
  });
  it('respects case when caseSensitive', () => {
    expect(points(short(true), ' New   York')).toBe(1);
    expect(points(short(true), 'new york')).toBe(0);
    expect(points(short(true), 'NYC')).toBe(1);
  });
  it('normalises Unicode so composed and decomposed accents match', () => {
    expect(normaliseText('Cafe\u0301', false)).toBe(normaliseText('Café', false));
  });
});

describe('auto-marking numeric', () => {
  it('accepts an exact answer when tolerance is 0 and refuses any other', () => {
    expect(points(numeric(2.5, 0), '2.5')).toBe(3);
    expect(points(numeric(2.5, 0), '2,5')).toBe(3);
    expect(points(numeric(2.5, 0), ' 2.50 ')).toBe(3);
    expect(points(numeric(2.5, 0), '2.51')).toBe(0);
  });
  it('is inclusive at the tolerance bound, despite binary floating point', () => {
    expect(points(numeric(3.14, 0.005), '3.145')).toBe(3);
    expect(points(numeric(3.14, 0.005), '3.135')).toBe(3);
    expect(points(numeric(3.14, 0.005), '3.1451')).toBe(0);
    expect(points(numeric(100, 1), '101')).toBe(3);
    expect(points(numeric(100, 1), '98.99')).toBe(0);
  });
  it('gives 0 for text that is not a plain number', () => {
    for (const t of ['', 'abc', '1,000.5', '3.14.1', '--1', '1e', 'Infinity', '0x10']) expect(points(numeric(3.14, 0.01), t)).toBe(0);
  });
  it('parses signs, leading dots and exponents', () => {
    expect(parseNumericAnswer('-0.5')).toBe(-0.5);
    expect(parseNumericAnswer('+.5')).toBe(0.5);
    expect(parseNumericAnswer('1e3')).toBe(1000);
    expect(parseNumericAnswer('1 000')).toBe(1000);
  });
});

describe('auto-marking essays and whole attempts', () => {
  it('never auto-marks an essay', () => {
    expect(points(essay, 'anything')).toBe('manual');
  });
  it('sums auto points, counts manual items, and adds every question to the maximum', () => {
    const qs = [single, multi(true), essay];
    const marked = markAttempt(qs, new Map<string, string | string[]>([['s', 'b'], ['m', ['a']], ['e', 'text']]));
    expect(marked).toMatchObject({ maxPoints: 16, autoPoints: 4, autoMarkableCount: 2, manualCount: 1 });
    expect(marked.items.map((i) => i.kind)).toEqual(['auto', 'auto', 'manual']);
  });
});

describe('the score object', () => {
  const at = new Date('2030-01-01T00:00:00Z');
  it('is final with passed for an immediate test with a pass mark', () => {
    expect(submissionScore({ autoPoints: 3, maxPoints: 4, autoMarkableCount: 2, manualCount: 0, resultVisibility: 'immediate', passPercent: 75, markedAt: at })).toEqual({
      points: 3,
      maxPoints: 4,
      percent: 75,
      passed: true,
      gradingStatus: 'final',
      markedAt: '2030-01-01T00:00:00.000Z',
    });
  });
  it('is pending_review with passed null while a review remains, and counts only marked points', () => {
    const s = submissionScore({ autoPoints: 3, maxPoints: 14, autoMarkableCount: 2, manualCount: 1, resultVisibility: 'after_review', passPercent: 10, markedAt: at });
    expect(s).toMatchObject({ points: 3, maxPoints: 14, gradingStatus: 'pending_review', passed: null });
  });
  it('is null when nothing is auto-markable', () => {
    expect(submissionScore({ autoPoints: 0, maxPoints: 10, autoMarkableCount: 0, manualCount: 1, resultVisibility: 'after_review', passPercent: null, markedAt: at })).toBeNull();
  });
  it('has passed null without a pass mark, and false below it', () => {
    expect(makeScore({ points: 1, maxPoints: 3, passPercent: null, final: true, markedAt: at })).toMatchObject({ percent: 33.33, passed: null });
    expect(makeScore({ points: 1, maxPoints: 3, passPercent: 50, final: true, markedAt: at }).passed).toBe(false);
  });
});
