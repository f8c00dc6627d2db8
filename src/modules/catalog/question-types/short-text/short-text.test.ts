import { describe, expect, it } from 'vitest';
import type { ErrorDetail } from '../../../../platform/errors.js';
import { plainTexts } from '../../content/page-texts.js';
import type { ShortTextQuestion } from './schema.js';
import { shortTextType } from './short-text.js';

// A capital: "Paris" in any case for the full 2 points, a pattern entry for half.
const q: ShortTextQuestion = {
  type: 'short_text',
  id: 'q1',
  prompt: 'The capital of France?',
  points: 2,
  acceptedAnswers: ['Paris', { text: 'Lutetia', points: 1, pattern: '[Ll]ut[eè]tia' }],
  caseSensitive: false,
};
const mark = (question: ShortTextQuestion, value: string) => shortTextType.mark!(question, value);

describe('the short_text definition', () => {
  it('marks by the best entry it matches, and leaves an unmatched answer to the model only with aiMarking', () => {
    expect(mark(q, '  paris ')).toEqual({ kind: 'auto', points: 2 });
    expect(mark(q, 'Lutètia')).toEqual({ kind: 'auto', points: 1 });
    expect(mark(q, 'Lyon')).toEqual({ kind: 'auto', points: 0 });
    expect(mark(q, '   ')).toEqual({ kind: 'auto', points: 0 });
    const ai = { ...q, aiMarking: { mode: 'suggest' as const, minConfidence: 0.8 }, criteria: [{ criterion: 'City', points: 2, description: 'Names it' }] };
    expect(mark(ai, 'Lyon')).toEqual({ kind: 'manual' });
  });

  it('checks its entries: a pattern that misses its own text, and no entry worth the full points', () => {
    const details: ErrorDetail[] = [];
    shortTextType.check!({ ...q, acceptedAnswers: [{ text: 'Rome', points: 1, pattern: 'Paris' }] }, 'questions.0', details);
    expect(details.map((d) => d.field)).toEqual(['questions.0.acceptedAnswers.0.text', 'questions.0.acceptedAnswers']);
  });

  it('keeps the answer as typed, empty as null, and refuses one over 1,000 characters', () => {
    expect(shortTextType.answer.check(q, ' Paris ')).toEqual({ ok: true, value: ' Paris ' });
    expect(shortTextType.answer.check(q, ' ')).toEqual({ ok: true, value: null });
    expect(shortTextType.answer.check(q, 'x'.repeat(1_001))).toEqual({ ok: false, message: 'must be at most 1000 characters' });
  });

  it('shows the page a labelled text field, and staff the answer with every accepted entry in words', () => {
    const page = shortTextType.page(q, { id: 'q1', where: 'question 1', value: 'Par', texts: plainTexts, shown: { optionOrder: {}, itemOrder: {} } }).value;
    expect(page).toContain('<input type="text" id="q1-input" name="q1" value="Par" autocomplete="off" maxlength="1000">');
    const review = shortTextType.review(q, 'paris', { texts: plainTexts }).value;
    // The candidate's typed text takes its own direction (an Arabic answer in an English portal).
    expect(review).toContain('<p class="answer" dir="auto">paris</p>');
    expect(review).toContain('<li>Paris — 2 points, any case</li>');
    expect(review).toContain('<li>Lutetia — 1 point, pattern [Ll]ut[eè]tia</li>');
    expect(shortTextType.simulate.correct(q)).toBe('Paris');
  });
});
