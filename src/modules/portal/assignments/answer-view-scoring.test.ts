import { describe, expect, it } from 'vitest';
import type { Question } from '../../catalog/schemas.js';
import { answerView } from './answer-view.js';

const text = (h: { value: string }) => h.value.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();
const single: Question = { id: 'q', type: 'single_choice', prompt: 'p', points: 2, options: [{ id: 'a', text: 'Alpha' }, { id: 'b', text: 'Beta' }], correctOptionId: 'a' };

describe('the answer of a question that keeps its QTI processing', () => {
  it('says it is marked by that processing, so the key beside it is not read as the mark', () => {
    const scored: Question = { ...single, scoring: { format: 'qti', declarations: '<x/>', responseProcessing: '<y/>', responses: [{ identifier: 'RESPONSE' }] } };
    expect(text(answerView(scored, 'b'))).toMatch(/^Marked by its imported QTI response processing: the correct answer shown is the item's declared one, and the mark may differ from it\. Alpha \(correct answer\) Beta Chosen/);
    expect(text(answerView(single, 'b'))).not.toContain('QTI');
  });
});
