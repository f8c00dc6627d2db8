import type { AiMarkableType, Question } from '../../catalog/schemas.js';
import { needsMarker } from '../auto-mark.js';
import { answerEntries } from '../../catalog/accepted-answers.js';
import { type AnswerValue } from '../../attempts/answer-values.js';
import type { MarkingTask } from './prompt.js';

/** A question the model may mark: an essay or short_text carrying `aiMarking` and its criteria. */
export type AiQuestion = Extract<Question, { type: AiMarkableType }> & {
  aiMarking: NonNullable<Extract<Question, { type: 'essay' }>['aiMarking']>;
  criteria: NonNullable<Extract<Question, { type: 'essay' }>['criteria']>;
};

export function isAiQuestion(q: Question): q is AiQuestion {
  return (q.type === 'essay' || q.type === 'short_text') && q.aiMarking !== undefined && q.criteria !== undefined;
}

/**
 * The items of a submitted attempt the model is asked to mark, pure: AI
 * questions whose answer the key could not mark (every essay; a short_text
 * answer that matched no accepted answer). An unanswered short_text gets 0
 * from the key and is never sent.
 */
export function aiItemsOf(questions: readonly Question[], answers: ReadonlyMap<string, AnswerValue>): AiQuestion[] {
  return questions.filter((q): q is AiQuestion => isAiQuestion(q) && needsMarker(q, answers.get(q.id)));
}

/** What the model needs to mark one item, and nothing about who wrote it. */
export function markingTask(q: AiQuestion, answer: AnswerValue | undefined): MarkingTask {
  return {
    questionType: q.type,
    prompt: q.prompt,
    maxPoints: q.points,
    rubric: q.rubric ?? null,
    criteria: q.criteria.map((c) => ({ criterion: c.criterion, points: c.points, description: c.description })),
    referenceAnswers: q.type === 'short_text' ? referenceAnswers(q) : [],
    maxWords: q.type === 'essay' ? (q.maxWords ?? null) : null,
    answer: typeof answer === 'string' ? answer : '',
  };
}

/** The entries' texts; one worth less than the question says so, so the model does not take it for a full answer. */
function referenceAnswers(q: Extract<Question, { type: 'short_text' }>): string[] {
  return answerEntries(q).map((e) => (e.points < q.points ? `${e.text} (worth ${e.points} of ${q.points} points)` : e.text));
}
