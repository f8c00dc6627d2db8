import { describe, expect, it } from 'vitest';
import type { Question } from '../../catalog/schemas.js';
import { markingTask, type AiQuestion } from '../../marking/ai/ai-items.js';
import { correctAnswer } from '../../sandbox/simulated-answers.js';
import { answerView } from './answer-view.js';

/** The page's text as a reader hears it: tags dropped, whitespace collapsed. */
const text = (h: { value: string }) => h.value.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();

const colour: Extract<Question, { type: 'short_text' }> = {
  id: 'st',
  type: 'short_text',
  prompt: 'Spell the word',
  points: 2,
  caseSensitive: false,
  acceptedAnswers: [{ text: 'color', points: 1 }, 'colour', { text: 'COLOUR', caseSensitive: true }, { text: 'kolor', points: 0.5, pattern: '[Kk]olou?r' }],
};

describe('short_text entries where staff, the model and the sandbox see them', () => {
  it("the reviewer's and the assignment's answer view lists each accepted answer with its points and how it is matched", () => {
    const out = text(answerView(colour, 'colr'));
    expect(out).toContain('colr Accepted:');
    expect(out).toContain('color — 1 point, any case');
    expect(out).toContain('colour — 2 points, any case');
    expect(out).toContain('COLOUR — 2 points, case-sensitive');
    expect(out).toContain('kolor — 0.5 points, pattern [Kk]olou?r');
    // One plain answer stays on one line, as before.
    expect(text(answerView({ ...colour, acceptedAnswers: ['Paris'] }, 'Lyon'))).toBe('Lyon Accepted: Paris — 2 points, any case');
  });

  it("AI marking's reference answers are the entries' texts, those worth less saying so", () => {
    const ai: AiQuestion = { ...colour, aiMarking: { mode: 'suggest', minConfidence: 0.8 }, criteria: [{ criterion: 'Spelling', points: 2, description: 'Spelt right' }] };
    expect(markingTask(ai, 'culur').referenceAnswers).toEqual(['color (worth 1 of 2 points)', 'colour', 'COLOUR', 'kolor (worth 0.5 of 2 points)']);
  });

  it("the sandbox's simulated student writes the first full-points entry's text, not a partial one listed before it", () => {
    expect(correctAnswer(colour)).toBe('colour');
    expect(correctAnswer({ ...colour, acceptedAnswers: ['Paris'] })).toBe('Paris');
  });
});
