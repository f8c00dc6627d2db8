import { describe, expect, it } from 'vitest';
import type { Question } from '../catalog/schemas.js';
import { markQuestion, needsMarker } from './auto-mark.js';

/**
 * A processing that passes the interpreter's step limit on an answer: three
 * `contains` of the answer's items in an outcome list of 8,000 near-matches
 * compare about 1.2 million pairs, past the limit of 1,000,000. The answer
 * gets no mark and waits for a reviewer instead of a wrong one.
 */
function stepHungryOrdering(): Question {
  const haystack = Array.from({ length: 8_000 }, () => '<qti-value>x</qti-value>').join('');
  const contains = '<qti-contains><qti-variable identifier="HAY"/><qti-variable identifier="RESPONSE"/></qti-contains>';
  const rule = (n: number) => `<qti-response-condition><qti-response-if>${contains}<qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">${n}</qti-base-value></qti-set-outcome-value></qti-response-if></qti-response-condition>`;
  return {
    id: 'slow',
    type: 'ordering',
    prompt: 'Order them',
    points: 2,
    items: Array.from({ length: 50 }, (_, i) => ({ id: i === 49 ? 'y' : `x${i}`, text: `Item ${i}` })),
    scoring: {
      format: 'qti',
      declarations:
        '<qti-response-declaration identifier="RESPONSE" cardinality="ordered" base-type="identifier"/>' +
        '<qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"/>' +
        `<qti-outcome-declaration identifier="HAY" cardinality="ordered" base-type="identifier"><qti-default-value>${haystack}</qti-default-value></qti-outcome-declaration>`,
      responseProcessing: `<qti-response-processing>${rule(1)}${rule(2)}${rule(3)}</qti-response-processing>`,
      responses: [{ identifier: 'RESPONSE' }],
    },
  };
}

describe('a QTI processing that passes the step limit', () => {
  it('leaves the answer for a reviewer; a small answer still runs', () => {
    const q = stepHungryOrdering();
    // 49 items that each match an "x", then one that never does: every start position compares up to 50 pairs.
    const long = [...Array.from({ length: 49 }, () => 'x'), 'y'];
    expect(markQuestion(q, long)).toEqual({ kind: 'manual' });
    expect(needsMarker(q, long)).toBe(true);
    expect(markQuestion(q, ['y'])).toEqual({ kind: 'auto', points: 0 });
  });
});
