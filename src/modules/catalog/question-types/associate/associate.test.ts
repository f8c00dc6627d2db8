import { describe, expect, it } from 'vitest';
import type { ErrorDetail } from '../../../../platform/errors.js';
import { plainTexts } from '../../content/page-texts.js';
import { associateType } from './associate.js';
import type { AssociateQuestion } from './rules.js';

// Capitals and countries: four items, two keyed pairs worth 2 points each (the question's 4 ÷ 2 pairs).
const q: AssociateQuestion = {
  type: 'associate',
  id: 'q1',
  prompt: 'Pair each capital with its country.',
  points: 4,
  items: [
    { id: 'paris', text: 'Paris' },
    { id: 'rome', text: 'Rome' },
    { id: 'france', text: 'France' },
    { id: 'italy', text: 'Italy' },
  ],
  pairs: [
    { a: 'paris', b: 'france' },
    { a: 'italy', b: 'rome' },
  ],
};

const problems = (question: AssociateQuestion): ErrorDetail[] => {
  const details: ErrorDetail[] = [];
  associateType.check!(question, 'questions.0', details);
  return details;
};
const mark = (question: AssociateQuestion, value: string[][]) => associateType.mark!(question, value);

describe('associate: authoring checks', () => {
  it('accepts a sound question', () => {
    expect(problems(q)).toEqual([]);
  });

  it('names each problem by its field', () => {
    const bad: AssociateQuestion = {
      ...q,
      items: [...q.items, { id: 'paris', text: 'Paris again' }],
      pairs: [
        { a: 'paris', b: 'france' },
        { a: 'france', b: 'paris' },
        { a: 'rome', b: 'rome' },
        { a: 'rome', b: 'spain' },
        { a: 'italy', b: 'rome', points: 5 },
      ],
      maxAssociations: 3,
    };
    expect(problems(bad)).toEqual([
      { field: 'questions.0.items.4.id', message: '"paris" is already the id of another item' },
      { field: 'questions.0.pairs.1', message: 'pairs "france" and "paris", as an earlier pair does' },
      { field: 'questions.0.pairs.2.b', message: 'pairs an item with itself; a pair is two different items' },
      { field: 'questions.0.pairs.3.b', message: '"spain" is not an item of this question' },
      { field: 'questions.0.pairs.4.points', message: "is more than the question's 4 points" },
      { field: 'questions.0.maxAssociations', message: 'must be at least the number of keyed pairs (5), or no answer could hold the whole key' },
    ]);
  });

  it('refuses pair points that cannot add up to the question’s points', () => {
    const short: AssociateQuestion = { ...q, pairs: [{ a: 'paris', b: 'france', points: 1 }, { a: 'rome', b: 'italy', points: 1 }] };
    expect(problems(short)).toEqual([
      { field: 'questions.0.pairs', message: "the pairs' points add up to 2, less than the question's 4: no answer could earn full marks" },
    ]);
  });
});

describe('associate: answers', () => {
  const check = (value: Parameters<typeof associateType.answer.check>[1]) => associateType.answer.check(q, value);

  it('stores each pair in item order and the pairs sorted, either way round', () => {
    expect(check([['italy', 'rome'], ['france', 'paris']])).toEqual({ ok: true, value: [['paris', 'france'], ['rome', 'italy']] });
    expect(check([])).toEqual({ ok: true, value: null });
    expect(check(null)).toEqual({ ok: true, value: null });
  });

  it('refuses an item with itself, a pair twice, an unknown id, a wrong shape and too many pairs', () => {
    expect(check([['paris', 'paris']])).toEqual({ ok: false, message: 'pairs "paris" with itself; a pair is two different items' });
    expect(check([['paris', 'france'], ['france', 'paris']])).toEqual({ ok: false, message: 'pairs "paris" and "france" twice' });
    expect(check([['paris', 'berlin']])).toEqual({ ok: false, message: '"berlin" is not an item of this question' });
    expect(check({ paris: 'france' })).toEqual({ ok: false, message: 'must be an array of pairs of item ids, [["a", "b"], …], or null' });
    expect(check([['paris']])).toMatchObject({ ok: false });
    const limited = { ...q, maxAssociations: 2 };
    expect(associateType.answer.check(limited, [['paris', 'france'], ['rome', 'italy'], ['paris', 'rome']])).toEqual({
      ok: false,
      message: 'holds 3 pairs; this question takes at most 2',
    });
  });
});

describe('associate: marking (map_response over pairs)', () => {
  it('gives each keyed pair made its share, either way round, and nothing for other pairs', () => {
    // Both keyed pairs: 2 + 2 = 4.
    expect(mark(q, [['paris', 'france'], ['rome', 'italy']])).toEqual({ kind: 'auto', points: 4 });
    // One keyed pair (written b, a) and one wrong pair: 2 + 0 = 2.
    expect(mark(q, [['france', 'paris'], ['rome', 'france']])).toEqual({ kind: 'auto', points: 2 });
    // Only wrong pairs: 0.
    expect(mark(q, [['paris', 'italy'], ['rome', 'france']])).toEqual({ kind: 'auto', points: 0 });
  });

  it('uses each pair’s own points and caps the sum at the question’s points', () => {
    // 3 points: paris–france 2, rome–italy 2, paris–rome 0.5 (a partial pair): at most 3.
    const weighted: AssociateQuestion = {
      ...q,
      points: 3,
      pairs: [
        { a: 'paris', b: 'france', points: 2 },
        { a: 'rome', b: 'italy', points: 2 },
        { a: 'paris', b: 'rome', points: 0.5 },
      ],
    };
    expect(problems(weighted)).toEqual([]);
    expect(mark(weighted, [['rome', 'italy'], ['paris', 'rome']])).toEqual({ kind: 'auto', points: 2.5 });
    expect(mark(weighted, [['paris', 'france'], ['rome', 'italy']])).toEqual({ kind: 'auto', points: 3 });
    expect(mark(weighted, [['paris', 'rome']])).toEqual({ kind: 'auto', points: 0.5 });
  });

  it('shares points that do not divide evenly: 1 point over three pairs', () => {
    const thirds: AssociateQuestion = { ...q, points: 1, pairs: [{ a: 'paris', b: 'france' }, { a: 'rome', b: 'italy' }, { a: 'paris', b: 'rome' }] };
    expect(mark(thirds, [['paris', 'france']])).toEqual({ kind: 'auto', points: 0.3333 });
    expect(mark(thirds, [['paris', 'france'], ['rome', 'italy']])).toEqual({ kind: 'auto', points: 0.6667 });
    expect(mark(thirds, [['paris', 'france'], ['rome', 'italy'], ['paris', 'rome']])).toEqual({ kind: 'auto', points: 1 });
  });
});

describe('associate: simulate, statistics, words', () => {
  it('simulates a full-marks answer and a wrong one', () => {
    const right = associateType.simulate.correct(q);
    expect(right).toEqual([['paris', 'france'], ['rome', 'italy']]);
    expect(mark(q, right as string[][])).toEqual({ kind: 'auto', points: 4 });
    const wrong = associateType.simulate.wrong!(q);
    expect(wrong).toEqual([['paris', 'rome']]);
    expect(associateType.answer.check(q, wrong)).toMatchObject({ ok: true });
    expect(mark(q, wrong as string[][])).toEqual({ kind: 'auto', points: 0 });
  });

  it('counts the keyed pairs as options, whichever way they were made', () => {
    expect(associateType.statistics!.options(q)).toEqual([
      { id: 'paris+france', text: 'Paris and France', correct: true },
      { id: 'rome+italy', text: 'Rome and Italy', correct: true },
    ]);
    expect(associateType.statistics!.chosen(q, [['italy', 'rome'], ['paris', 'rome']])).toEqual(['rome+italy']);
    expect(associateType.statistics!.chosen(q, null)).toEqual([]);
  });

  it('says the answer in words, and staff see each pair right or wrong and the pairs missed', () => {
    expect(associateType.answerText(q, [['paris', 'france'], ['rome', 'france']])).toBe('Paris and France; Rome and France');
    expect(associateType.answerText(q, null)).toBe('');
    const review = associateType.review(q, [['paris', 'france'], ['rome', 'france']], { texts: plainTexts }).toString();
    expect(review).toContain('Paris <span aria-hidden="true">↔</span><span class="sr-only"> and</span> France <span class="badge badge-right">right</span>');
    expect(review).toContain('Rome <span aria-hidden="true">↔</span><span class="sr-only"> and</span> France <span class="badge badge-wrong">wrong</span>');
    expect(review).toContain('Correct pairs not made:</p><ul class="answer-pairs"><li>Italy <span aria-hidden="true">↔</span><span class="sr-only"> and</span> Rome</li>');
    expect(associateType.review(q, null, { texts: plainTexts }).toString()).toContain('Not answered.');
  });
});
