import { describe, expect, it } from 'vitest';
import type { ErrorDetail } from '../../../../platform/errors.js';
import { checkParameters } from './check.js';
import { drawValues, MAX_TRIES, rangeValue, seededRandom, stepCount } from './draw.js';
import { formatNumber, withValues } from './with-values.js';
import { deliver, drawDelivery, identityDelivery, sampleDelivery } from '../../delivery.js';
import type { Question } from '../../schemas.js';

const numeric = (extra: object): { type: string; prompt: string } & Record<string, any> => ({ type: 'numeric', id: 'q1', prompt: 'What is {a} × {b}?', points: 1, tolerance: 0, ...extra });
const problems = (q: object) => {
  const details: ErrorDetail[] = [];
  checkParameters(q as Parameters<typeof checkParameters>[0], 'questions.0', details);
  return details;
};

describe('drawing values', () => {
  it('steps through a range without float noise, ends included', () => {
    const v = { min: 0.1, max: 0.5, step: 0.1 };
    expect(stepCount(v)).toBe(5);
    expect(Array.from({ length: 5 }, (_, k) => rangeValue(v, k))).toEqual([0.1, 0.2, 0.3, 0.4, 0.5]);
    expect(stepCount({ min: 1, max: 10, step: 3 })).toBe(4);
  });

  it('draws each variable from its range or list, meeting the constraints', () => {
    const q = { variables: [{ name: 'a', min: 1, max: 9, step: 1 }, { name: 'b', values: [2, 4, 6] }, { name: 'who', values: ['Ann', 'Bo'] }], constraints: ['a != b'] };
    const random = seededRandom('test');
    for (let i = 0; i < 200; i++) {
      const v = drawValues(q, random);
      expect(Number.isInteger(v.a) && (v.a as number) >= 1 && (v.a as number) <= 9).toBe(true);
      expect([2, 4, 6]).toContain(v.b);
      expect(['Ann', 'Bo']).toContain(v.who);
      expect(v.a).not.toBe(v.b);
    }
  });

  it('redraws a draw whose answer has no value', () => {
    const q = { variables: [{ name: 'a', min: 0, max: 1, step: 1 }], answerFormula: '1 / a' };
    const picks = [0, 0, 1];
    expect(drawValues(q, () => picks.shift() ?? 0)).toEqual({ a: 1 });
  });

  it('after the tries run out, falls back to a sample draw that meets the constraints', () => {
    const q = { variables: [{ name: 'a', min: 1, max: 100, step: 1 }], constraints: ['a = 77'] };
    let calls = 0;
    const always1 = () => (calls++, 0);
    expect(drawValues(q, always1)).toEqual({ a: 77 });
    expect(calls).toBe(MAX_TRIES);
  });
});

describe('withValues: the question the candidate sees', () => {
  it('replaces the prompt placeholders and calculates a numeric answer without noise', () => {
    const q = numeric({ prompt: 'Add {a} and {b}; {c} is not a variable.', variables: [{ name: 'a', min: 0.1, max: 0.9, step: 0.1 }, { name: 'b', values: [0.2] }], answerFormula: 'a + b' });
    const shown = withValues(q, { a: 0.1, b: 0.2 });
    expect(shown.prompt).toBe('Add 0.1 and 0.2; {c} is not a variable.');
    expect((shown as { answer?: number }).answer).toBe(0.3);
    expect(q.prompt).toContain('{a}');
  });

  it('accepts a short-text formula value as text, beside the accepted answers with their values', () => {
    const q = { type: 'short_text', prompt: '{a} ÷ {b}?', variables: [{ name: 'a', values: [1] }, { name: 'b', values: [4] }], answerFormula: 'a / b', acceptedAnswers: ['{a}/{b}', { text: '{a} over {b}', points: 1 }] };
    expect(withValues(q, { a: 1, b: 4 }).acceptedAnswers).toEqual(['0.25', '1/4', { text: '1 over 4', points: 1 }]);
  });

  it('leaves a question without values or variables as it is', () => {
    const plain = numeric({ answer: 6 });
    expect(withValues(plain, { a: 1 })).toBe(plain);
    const q = numeric({ variables: [{ name: 'a', values: [1] }], answerFormula: 'a' });
    expect(withValues(q, undefined)).toBe(q);
  });

  it('formats numbers as people write them', () => {
    expect(formatNumber(0.1 + 0.2)).toBe('0.3');
    expect(formatNumber(1 / 3)).toBe('0.333333333333');
    expect(formatNumber(-12)).toBe('-12');
    expect(formatNumber(2.5e-7)).toBe('2.5e-7');
  });
});

describe('authoring checks', () => {
  const good = numeric({ variables: [{ name: 'a', min: 1, max: 9, step: 1 }, { name: 'b', values: [2, 3] }], constraints: ['a > b'], answerFormula: 'a * b' });

  it('accept a well-formed parametrised question, and a plain numeric with answer', () => {
    expect(problems(good)).toEqual([]);
    expect(problems(numeric({ prompt: 'What is 6 × 7?', answer: 42 }))).toEqual([]);
  });

  it('keep answer required for plain numeric, and not with a formula', () => {
    expect(problems(numeric({ prompt: 'x' }))).toEqual([{ field: 'questions.0.answer', message: 'is required (or answerFormula, with variables)' }]);
    expect(problems({ ...good, answer: 3 })).toEqual([{ field: 'questions.0.answer', message: 'give answer or answerFormula, not both' }]);
    expect(problems(numeric({ prompt: 'x', answerFormula: '2' }))).toEqual([{ field: 'questions.0.answerFormula', message: 'needs variables to calculate with' }]);
  });

  it('name each problem of the variables, placeholders and expressions', () => {
    const bad = numeric({
      prompt: 'What is {a} × {c}?',
      variables: [{ name: 'a', min: 5, max: 1, step: 1 }, { name: 'a', values: [1] }, { name: 'sqrt', min: 0, max: 1e9, step: 0.0001 }, { name: 't', values: ['x'] }],
      constraints: ['a >'],
      answerFormula: 'a * q + t',
    });
    expect(problems(bad)).toEqual([
      { field: 'questions.0.variables.0.max', message: 'is 1, less than min 5' },
      { field: 'questions.0.variables.1.name', message: 'duplicates variable "a"' },
      { field: 'questions.0.variables.2.name', message: '"sqrt" is a function or constant of formulas; choose another name' },
      { field: 'questions.0.variables.2.step', message: 'gives more than 1,000,000 values from 0 to 1000000000; use a larger step' },
      { field: 'questions.0.prompt', message: '{c} is not a variable of the question' },
      { field: 'questions.0.constraints.0', message: 'the expression ends too soon at 4' },
      { field: 'questions.0.answerFormula', message: 'unknown variable `q` at 5' },
    ]);
    expect(problems({ ...good, answerFormula: 'a + t', variables: [...good.variables, { name: 't', values: ['x', 2] }] })).toEqual([
      { field: 'questions.0.answerFormula', message: 'variable `t` holds text, not a number, at 5' },
    ]);
  });

  it('refuse constraints no sample draw meets', () => {
    expect(problems({ ...good, constraints: ['a > 100'] })).toEqual([
      { field: 'questions.0.constraints', message: 'no draw of 1,000 tries meets the constraints with a calculable answer; widen the variables or loosen the constraints' },
    ]);
    expect(problems({ ...good, constraints: [], answerFormula: 'sqrt(-a)' })[0]?.field).toBe('questions.0.answerFormula');
  });
});

describe('the delivery keeps the values', () => {
  const test = {
    sections: null,
    questions: [
      { type: 'numeric', id: 'calc', prompt: 'Double {a}', points: 1, tolerance: 0, variables: [{ name: 'a', min: 1, max: 3, step: 1 }], answerFormula: '2 * a' },
      { type: 'numeric', id: 'plain', prompt: 'Six sevens?', points: 1, tolerance: 0, answer: 42 },
    ] as Question[],
  };

  it('draws values for the parametrised question only, and deliver gives the question with them', () => {
    const d = drawDelivery(test, () => 1);
    expect(d.values).toEqual({ calc: { a: 2 } });
    const [calc, plain] = deliver(test, d).questions as Array<{ prompt: string; answer?: number }>;
    expect(calc).toMatchObject({ prompt: 'Double 2', answer: 4 });
    expect(plain).toBe(test.questions[1]);
  });

  it('an attempt stored without values delivers the questions as authored; the preview gets a sample draw', () => {
    const old = { sections: [{ sectionId: 'main', questionIds: ['calc', 'plain'] }], optionOrder: {}, itemOrder: {} };
    expect(deliver(test, old).questions[0]).toBe(test.questions[0]);
    const preview = sampleDelivery(test, () => 0);
    expect(preview.sections).toEqual(identityDelivery(test).sections);
    expect((deliver(test, preview).questions[0] as { prompt: string }).prompt).toBe('Double 1');
  });
});
