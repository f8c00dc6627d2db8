import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../platform/errors.js';
import { checkTestInput } from '../catalog/authoring.js';
import type { Question, TestInput } from '../catalog/schemas.js';
import { drawDelivery } from '../catalog/delivery.js';
import { markQuestion } from '../marking/auto-mark.js';
import { checkAnswerValue } from '../attempts/answer-values.js';
import { correctAnswer } from './simulated-answers.js';

/** Composite questions: authoring rules, marking as the sum of the parts, answer checks, delivery and simulated answers. */
const EXAMPLE = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../docs/examples/tests/composite.json'), 'utf8')) as TestInput;

const details = (input: TestInput) => {
  try {
    checkTestInput(input);
  } catch (err) {
    if (err instanceof AppError) return err.details ?? [];
    throw err;
  }
  return [];
};
const withComposite = (change: (q: Record<string, any>) => void): TestInput => {
  const input = structuredClone(EXAMPLE);
  change(input.questions![0] as Record<string, any>);
  return input;
};
const stored = (): Extract<Question, { type: 'composite' }> => checkTestInput(EXAMPLE).questions[0] as Extract<Question, { type: 'composite' }>;
const auto = (q: Question, value: Parameters<typeof markQuestion>[1]) => {
  const m = markQuestion(q, value);
  if (m.kind !== 'auto') throw new Error('expected an automatic mark');
  return m.points;
};

describe('authoring a composite question', () => {
  it("stores the parts' sum as the question's points, with each part's defaults filled in", () => {
    const q = stored();
    expect(q.points).toBe(6);
    expect(q.parts.find((p) => p.id === 'unit')).toMatchObject({ caseSensitive: false });
    expect(q.parts.find((p) => p.id === 'time')).toMatchObject({ tolerance: 0.05 });
  });

  it('refuses repeated part ids, a part that breaks its own type’s rules and points that are not the sum, naming each path', () => {
    const input = withComposite((q) => {
      q.points = 5;
      q.parts[1].id = 'time';
      q.parts[1].correctOptionId = 'nope';
      q.parts[3].items[1].id = 'rest';
    });
    expect(details(input)).toEqual([
      { field: 'questions.0.parts.1.id', message: 'duplicates part id "time"' },
      { field: 'questions.0.parts.1.correctOptionId', message: '"nope" is not one of the options' },
      { field: 'questions.0.parts.3.items.1.id', message: 'duplicates item id "rest"' },
      { field: 'questions.0.points', message: "is 5, but the parts' points sum to 6 (leave points out to take the sum)" },
    ]);
  });

  it('accepts points equal to the sum', () => {
    expect(details(withComposite((q) => (q.points = 6)))).toEqual([]);
  });

  it('checks a pool of composite questions by their summed points', () => {
    const input: TestInput = {
      ...structuredClone(EXAMPLE),
      questions: undefined,
      sections: [{ title: 'Pool', draw: 1, questions: [structuredClone(EXAMPLE.questions![0]!), { ...structuredClone(EXAMPLE.questions![1]!), points: 6 }] }],
    };
    delete (input as Partial<TestInput>).questions;
    expect(details(input)).toEqual([]);
    input.sections![0]!.questions[1]!.points = 5;
    expect(details(input)).toEqual([{ field: 'sections.0.draw', message: 'section "Pool" is a pool, so its questions must have equal points (they have 5, 6)' }]);
  });
});

describe('marking a composite question', () => {
  it("gives the sum of the parts' own marks, each part by its type's rules", () => {
    const q = stored();
    expect(auto(q, { time: '2,0', energy: 'gpe', unit: ' Joules ', order: ['rest', 'half', 'ground'] })).toBe(6);
    // time within tolerance (2), energy wrong (0), unit missing (0), order: 1 of 3 in place, partial credit 2 × 1/3.
    expect(auto(q, { time: '2.04', energy: 'kinetic', order: ['rest', 'ground', 'half'] })).toBe(2.6667);
    expect(auto(q, null)).toBe(0);
    expect(auto(q, { time: 'two' })).toBe(0);
  });

  it('simulates the correct answer of every part', () => {
    const q = stored();
    const answer = correctAnswer(q);
    expect(answer).toEqual({ time: '2', energy: 'gpe', unit: 'joule', order: ['rest', 'half', 'ground'] });
    expect(auto(q, answer)).toBe(q.points);
  });
});

describe('a saved answer to a composite question', () => {
  it('is checked part by part as each type checks its own, and stored in part order without empty parts', () => {
    const q = stored();
    expect(checkAnswerValue(q, { order: ['half', 'rest', 'ground'], unit: '  ', energy: 'gpe', time: null })).toEqual({ ok: true, value: { energy: 'gpe', order: ['half', 'rest', 'ground'] } });
    expect(checkAnswerValue(q, { unit: '' })).toEqual({ ok: true, value: null });
    expect(checkAnswerValue(q, { energy: 'water' })).toEqual({ ok: false, message: 'part "energy" "water" is not an option of this question' });
    expect(checkAnswerValue(q, { extra: 'x' })).toEqual({ ok: false, message: '"extra" is not a part of this question' });
    expect(checkAnswerValue(q, { order: ['rest'] })).toEqual({ ok: false, message: 'part "order" must list each of the 3 item ids exactly once (a permutation)' });
    expect(checkAnswerValue(q, 'gpe')).toEqual({ ok: false, message: 'must be an object of { partId: answer } or null' });
  });
});

describe('delivering a composite question', () => {
  it("shuffles a part's options and scrambles its items as their standalone types, each under the part's own key", () => {
    const checked = checkTestInput(EXAMPLE);
    const delivery = drawDelivery({ sections: checked.sections, questions: checked.questions }, (n) => n - 1);
    expect(Object.keys(delivery.optionOrder)).toEqual(['ball.energy']);
    expect([...delivery.optionOrder['ball.energy']!].sort()).toEqual(['gpe', 'kinetic', 'thermal']);
    expect(delivery.itemOrder['ball.order']).toBeDefined();
    expect(delivery.itemOrder['ball.order']).not.toEqual(['rest', 'half', 'ground']);
  });
});
