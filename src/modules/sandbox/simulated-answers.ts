import type { AnswerValue } from '../attempts/answer-values.js';
import { roundPoints } from '../marking/auto-mark.js';
import type { Question } from '../catalog/schemas.js';

/**
 * What a simulated student writes and what a simulated reviewer marks, pure.
 * A target `score` is a percentage (0–100) of the test's maximum points; the
 * answers reach it as closely as the test's questions allow (whole questions
 * are answered right or left blank, so a test of four 5-point questions can
 * give 0, 25, 50, 75 or 100 %).
 */
export const SIMULATED_TEXT = 'A simulated answer (test mode).';

/** The answer the key marks right, for a question the key can mark; null for an essay or a file. */
export function correctAnswer(q: Question): AnswerValue {
  switch (q.type) {
    case 'single_choice':
      return q.correctOptionId;
    case 'multiple_choice':
      return q.options.map((o) => o.id).filter((id) => q.correctOptionIds.includes(id));
    case 'short_text':
      return q.acceptedAnswers[0]!;
    case 'numeric':
      return String(q.answer);
    case 'matching':
      return { ...q.correct };
    case 'ordering':
      return q.items.map((i) => i.id);
    case 'fill_blanks':
      return Object.fromEntries(q.blanks.map((b) => [b.id, b.kind === 'choice' ? b.correctOptionId : b.acceptedAnswers[0]!]));
    case 'essay':
    case 'file_upload':
      return null;
  }
}

/**
 * Answers reaching `percent` of the test's points through its auto-marked
 * questions: the biggest questions first, each answered right while the
 * total stays at or under the target, then the one question that brings it
 * closest if overshooting is nearer. Essays get a placeholder text, so they
 * wait for marking as a real essay does; other questions are left blank.
 */
export function answersForScore(questions: readonly Question[], percent: number): Array<{ questionId: string; value: AnswerValue }> {
  const maxPoints = questions.reduce((s, q) => s + q.points, 0);
  const target = (percent / 100) * maxPoints;
  const byPoints = questions.filter((q) => q.type !== 'essay' && q.type !== 'file_upload').sort((a, b) => b.points - a.points);
  const right = new Set<string>();
  let total = 0;
  for (const q of byPoints) {
    if (total + q.points <= target + 1e-9) {
      right.add(q.id);
      total += q.points;
    }
  }
  const rest = byPoints.filter((q) => !right.has(q.id));
  const smallest = rest[rest.length - 1];
  if (smallest && Math.abs(total + smallest.points - target) < Math.abs(total - target)) right.add(smallest.id);
  return questions.map((q) => ({
    questionId: q.id,
    value: q.type === 'essay' ? SIMULATED_TEXT : right.has(q.id) ? correctAnswer(q) : null,
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
