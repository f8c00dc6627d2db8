import type { CompositePart, Question, QuestionInput } from './schemas.js';

/**
 * Composite questions: several interactions in one item, scored together.
 * Each part is one of the answerable types with its own prompt, points and
 * key; the answer is `{ partId: value }`, each value in its part type's own
 * shape. Everything that knows a type (marking, the student page, answer
 * checks, the reviewer's view) handles a part by treating it as a question
 * of its own: `partQuestion` gives that question.
 */

export type CompositeQuestion = Extract<Question, { type: 'composite' }>;

/** Points kept to 4 decimals, as marks are, so a sum of thirds does not drift. */
const round = (n: number) => Math.round(n * 10_000) / 10_000;

/** The parts' points summed: a composite question's points. */
export function compositePoints(parts: ReadonlyArray<{ points: number }>): number {
  return round(parts.reduce((s, p) => s + p.points, 0));
}

/** A question's points as authored: a composite question without `points` is worth its parts' sum. */
export function inputPoints(q: QuestionInput): number {
  return q.type === 'composite' ? (q.points ?? compositePoints(q.parts)) : q.points;
}

/**
 * A part as a question of its own. Its id is `<questionId>.<partId>` (a dot
 * never occurs in either id), which keys its shown option or item order in
 * the delivery and its rendered texts.
 */
export function partQuestion(q: { id: string }, part: CompositePart): Question {
  return { ...part, id: partKey(q.id, part.id) } as Question;
}

export function partKey(questionId: string, partId: string): string {
  return `${questionId}.${partId}`;
}
