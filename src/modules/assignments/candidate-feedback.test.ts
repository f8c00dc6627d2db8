import { describe, expect, it } from 'vitest';
import type { ErrorDetail } from '../../platform/errors.js';
import { checkFeedback, FEEDBACK_MAX_CHARS, isEmptyFeedback } from './candidate-feedback.js';

/** Feedback as stored: normalised, ordered as the candidate saw the questions, empty texts dropped; refusals name their field. */
describe('checking feedback for the candidate', () => {
  const shown = ['q3', 'q1', 'q2'];

  it('trims, turns CRLF into LF, drops empty texts and orders the questions as they were shown', () => {
    const details: ErrorDetail[] = [];
    const f = checkFeedback(
      { overall: ' \r\nWell done.\r\n\r\nKeep going. ', questions: [{ questionId: 'q2', feedback: 'Two' }, { questionId: 'q1', feedback: '  ' }, { questionId: 'q3', feedback: 'Three\r\nlines' }] },
      shown,
      'feedback',
      details,
    );
    expect(details).toEqual([]);
    expect(f).toEqual({ overall: 'Well done.\n\nKeep going.', questions: [{ questionId: 'q3', feedback: 'Three\nlines' }, { questionId: 'q2', feedback: 'Two' }] });
    expect(isEmptyFeedback(checkFeedback({ overall: null, questions: [{ questionId: 'q1', feedback: '' }] }, shown, 'feedback', details)!)).toBe(true);
  });

  it('counts the limit in characters, not UTF-16 units, and refuses control characters and unknown or repeated questions', () => {
    const details: ErrorDetail[] = [];
    expect(checkFeedback({ overall: '😀'.repeat(FEEDBACK_MAX_CHARS) }, shown, 'feedback', details)).not.toBeNull();
    const refused = checkFeedback(
      {
        overall: 'x'.repeat(FEEDBACK_MAX_CHARS + 1),
        questions: [{ questionId: 'q9', feedback: 'a' }, { questionId: 'q1', feedback: 'bell\u0007' }, { questionId: 'q1', feedback: 'b' }],
      },
      shown,
      'feedback',
      details,
    );
    expect(refused).toBeNull();
    expect(details.map((d) => d.field)).toEqual(['feedback.overall', 'feedback.questions.0.questionId', 'feedback.questions.1.feedback', 'feedback.questions.2.questionId']);
    expect(details[0]!.message).toBe(`is ${FEEDBACK_MAX_CHARS + 1} characters long; feedback is at most ${FEEDBACK_MAX_CHARS}`);
  });
});
