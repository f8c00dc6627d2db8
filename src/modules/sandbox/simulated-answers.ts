import type { AnswerValue, PartValue } from '../attempts/answer-values.js';
import { isAutoMarkable, markQuestion, roundPoints } from '../marking/auto-mark.js';
import type { BuiltInQuestion, Question } from '../catalog/schemas.js';
import type { BaseQuestion } from '../catalog/question-types/definition.js';
import { questionType } from '../catalog/question-types/registry.js';
import { answerTexts } from '../catalog/accepted-answers.js';
import { partQuestion } from '../catalog/composite.js';

/**
 * What a simulated student writes and what a simulated reviewer marks, pure.
 * A target `score` is a percentage (0–100) of the test's maximum points; the
 * answers reach it as closely as the test's questions allow (whole questions
 * are answered right or left blank, so a test of four 5-point questions can
 * give 0, 25, 50, 75 or 100 %).
 */
export const SIMULATED_TEXT = 'A simulated answer (test mode).';

/** The answer the key marks right, for a question the key can mark; null for an essay or a file. */
export function correctAnswer(question: Question): AnswerValue {
  const def = questionType(question.type);
  if (def) return def.simulate.correct(question as BaseQuestion);
  const q = question as BuiltInQuestion;
  switch (q.type) {
    case 'composite':
      // Every part's own correct answer, keyed by part id.
      return Object.fromEntries(q.parts.map((part) => [part.id, correctAnswer(partQuestion(q, part)) as PartValue]));
  }
}

/**
 * The best answer the simulation knows for an auto-marked question and the
 * points marking gives it. The key's answer earns full points, except for a
 * question that keeps its imported QTI processing: that is run over the
 * key's answer and, for the questions whose key lists alternatives (each
 * option of a single choice, each accepted text, and so for each such part
 * of a composite question, one part at a time), over those too, and the
 * best is taken. It earns full points when the item's correct responses do.
 */
export function bestAnswer(q: Question): { value: AnswerValue; points: number } {
  const key = correctAnswer(q);
  if (!('scoring' in q) || !q.scoring) return { value: key, points: q.points };
  const candidates: AnswerValue[] = [key];
  if (q.type === 'single_choice') candidates.push(...q.options.map((o) => o.id));
  if (q.type === 'short_text') candidates.push(...answerTexts(q));
  if (q.type === 'composite' && key !== null && typeof key === 'object' && !Array.isArray(key)) {
    // One part at a time, each of its alternatives in place of its key's answer.
    for (const part of q.parts) {
      const alternatives = part.type === 'single_choice' ? part.options.map((o) => o.id) : part.type === 'short_text' ? answerTexts(part) : [];
      for (const alt of alternatives) candidates.push({ ...key, [part.id]: alt });
    }
  }
  let best = { value: key, points: -1 };
  for (const value of candidates) {
    const mark = markQuestion(q, value);
    const points = mark.kind === 'auto' ? mark.points : 0;
    if (points > best.points) best = { value, points };
  }
  return best;
}

/**
 * Answers reaching `percent` of the test's points through its auto-marked
 * questions: the biggest questions first, each answered with its best
 * answer while the total stays at or under the target, then the one
 * question that brings it closest if overshooting is nearer. Essays get a
 * placeholder text, so they wait for marking as a real essay does; other
 * questions are left blank.
 */
export function answersForScore(questions: readonly Question[], percent: number): Array<{ questionId: string; value: AnswerValue }> {
  const maxPoints = questions.reduce((s, q) => s + q.points, 0);
  const target = (percent / 100) * maxPoints;
  const best = new Map(questions.filter((q) => isAutoMarkable(q)).map((q) => [q.id, bestAnswer(q)]));
  const byPoints = questions.filter((q) => best.has(q.id)).sort((a, b) => best.get(b.id)!.points - best.get(a.id)!.points);
  const right = new Set<string>();
  let total = 0;
  for (const q of byPoints) {
    const points = best.get(q.id)!.points;
    if (total + points <= target + 1e-9) {
      right.add(q.id);
      total += points;
    }
  }
  const rest = byPoints.filter((q) => !right.has(q.id));
  const smallest = rest[rest.length - 1];
  if (smallest && Math.abs(total + best.get(smallest.id)!.points - target) < Math.abs(total - target)) right.add(smallest.id);
  return questions.map((q) => ({
    questionId: q.id,
    value: q.type === 'essay' ? SIMULATED_TEXT : right.has(q.id) ? best.get(q.id)!.value : null,
  }));
}

/** A simulated reviewer's mark: points, or for a question marked per criterion each criterion's points (their sum is the mark). */
export interface SimulatedMark {
  questionId: string;
  points: number;
  criteria?: Array<{ criterion: string; points: number }>;
}

/**
 * Points for the items awaiting a reviewer: full points without a target;
 * with one, what the assignment still lacks to reach `percent` of its
 * maximum, given in item order, each item between 0 and its points. An item
 * marked per criterion gets its points as a reviewer gives them, criterion
 * by criterion (each up to its own points, in the question's order).
 */
export function marksForScore(
  items: ReadonlyArray<{
    questionId: string;
    maxPoints: number;
    needsMarking: boolean;
    points: number | null;
    criteria?: ReadonlyArray<{ criterion: string; points: number }> | null;
  }>,
  percent: number | undefined,
): SimulatedMark[] {
  const awaiting = items.filter((i) => i.needsMarking);
  const maxPoints = items.reduce((s, i) => s + i.maxPoints, 0);
  const already = items.filter((i) => !i.needsMarking).reduce((s, i) => s + (i.points ?? 0), 0);
  let missing = percent === undefined ? Infinity : Math.max(0, (percent / 100) * maxPoints - already);
  return awaiting.map((i) => {
    const points = roundPoints(Math.min(i.maxPoints, missing));
    if (!i.criteria) {
      missing -= points;
      return { questionId: i.questionId, points };
    }
    let left = points;
    const criteria = i.criteria.map((c) => {
      const given = roundPoints(Math.max(0, Math.min(c.points, left)));
      left -= given;
      return { criterion: c.criterion, points: given };
    });
    const sum = roundPoints(criteria.reduce((s, c) => s + c.points, 0));
    missing -= sum;
    return { questionId: i.questionId, points: sum, criteria };
  });
}
