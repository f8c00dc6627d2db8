import { describe, expect, it } from 'vitest';
import type { Question } from '../catalog/schemas.js';
import { answersForScore, bestAnswer } from './simulated-answers.js';

const rp = (inner: string) => `<qti-response-processing><qti-response-condition>${inner}</qti-response-condition></qti-response-processing>`;
const setScore = (n: number) => `<qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">${n}</qti-base-value></qti-set-outcome-value>`;
const isChoice = (id: string) => `<qti-match><qti-variable identifier="RESPONSE"/><qti-base-value base-type="identifier">${id}</qti-base-value></qti-match>`;

/** The item declares "a" correct, but its processing gives "b" the full 2 points and "a" only 1. */
const scored: Question = {
  id: 'q',
  type: 'single_choice',
  prompt: 'p',
  points: 2,
  options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }, { id: 'c', text: 'C' }],
  correctOptionId: 'a',
  scoring: {
    format: 'qti',
    declarations:
      '<qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="identifier"><qti-correct-response><qti-value>a</qti-value></qti-correct-response></qti-response-declaration>' +
      '<qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"/>',
    responseProcessing: rp(`<qti-response-if>${isChoice('b')}${setScore(2)}</qti-response-if><qti-response-else-if>${isChoice('a')}${setScore(1)}</qti-response-else-if>`),
    responses: [{ identifier: 'RESPONSE' }],
  },
};

describe('simulated answers for questions that keep their QTI processing', () => {
  it("takes the answer the processing scores best, not only the key's", () => {
    expect(bestAnswer(scored)).toEqual({ value: 'b', points: 2 });
    const { scoring: _s, ...keyed } = scored;
    expect(bestAnswer(keyed as Question)).toEqual({ value: 'a', points: 2 });
  });

  it('a 100 % target answers with it', () => {
    expect(answersForScore([scored], 100)).toEqual([{ questionId: 'q', value: 'b' }]);
    expect(answersForScore([scored], 0)).toEqual([{ questionId: 'q', value: null }]);
  });
});
