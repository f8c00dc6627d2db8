import { formatPoints } from '../../platform/web/html.js';
import type { ErrorDetail } from '../../platform/errors.js';
import type { Question } from '../catalog/schemas.js';
import { roundPoints } from './auto-mark.js';
import type { CriterionMark } from './marks-repo.js';

/**
 * Marking per criterion (pure). A question with `criteria` (essay,
 * short_text, file_upload) is marked per criterion: each criterion gets points between 0
 * and its own points, and an optional comment; the question's points are
 * their sum, never typed apart (a total sent beside them must equal it). A
 * question without criteria keeps one points box. Criteria are named by
 * their `criterion` text, exactly as the test writes it (unique within the
 * question).
 *
 * Compatibility: the operator API accepted `points` alone for every question
 * before criterion marks existed, and still does (a total without a
 * breakdown, stored with no criterion marks); the portal always marks a
 * question with criteria per criterion.
 */
export interface MarkingCriterion {
  criterion: string;
  points: number;
  description: string;
}

export function criteriaOf(q: Question): readonly MarkingCriterion[] | null {
  return (q.type === 'essay' || q.type === 'short_text' || q.type === 'file_upload') && q.criteria ? q.criteria : null;
}

export interface CriterionInput {
  criterion: string;
  points: number;
  comment?: string | undefined;
}

/**
 * The mark to store for one question, or null with `details` added (fields
 * under `at`, e.g. `marks.0`). `points` bounds of a question without
 * criteria are the caller's.
 */
export function resolveCriterionMark(
  q: Question,
  m: { points?: number | undefined; criteria?: readonly CriterionInput[] | undefined },
  at: string,
  details: ErrorDetail[],
): { points: number; criteria: CriterionMark[] | null } | null {
  const criteria = criteriaOf(q);
  const before = details.length;
  if (!criteria) {
    if (m.criteria !== undefined) details.push({ field: `${at}.criteria`, message: `question ${q.id} has no criteria: send its points alone` });
    if (m.points === undefined) details.push({ field: `${at}.points`, message: 'is required: the question has no criteria to sum' });
    return details.length > before ? null : { points: m.points!, criteria: null };
  }
  if (m.criteria === undefined) {
    if (m.points !== undefined) return { points: m.points, criteria: null };
    details.push({
      field: `${at}.criteria`,
      message: `is required: question ${q.id} is marked per criterion (${criteria.map((c) => `"${c.criterion}"`).join(', ')}); its points are their sum (or send points alone, without a breakdown)`,
    });
    return null;
  }
  const byName = new Map(criteria.map((c) => [c.criterion, c]));
  const given = new Map<string, CriterionInput>();
  m.criteria.forEach((c, j) => {
    const known = byName.get(c.criterion);
    if (!known) return details.push({ field: `${at}.criteria.${j}.criterion`, message: `"${c.criterion}" is not a criterion of question ${q.id}` });
    if (given.has(c.criterion)) return details.push({ field: `${at}.criteria.${j}.criterion`, message: `"${c.criterion}" appears twice` });
    given.set(c.criterion, c);
    if (!(c.points >= 0 && c.points <= known.points)) {
      details.push({ field: `${at}.criteria.${j}.points`, message: `must be between 0 and ${formatPoints(known.points)}, the points of "${c.criterion}"` });
    }
  });
  const missing = criteria.filter((c) => !given.has(c.criterion));
  if (missing.length > 0) {
    details.push({ field: `${at}.criteria`, message: `misses criterion ${missing.map((c) => `"${c.criterion}"`).join(', ')}: every criterion needs points` });
  }
  if (details.length > before) return null;
  const marks = criteria.map((c) => {
    const g = given.get(c.criterion)!;
    const comment = g.comment?.trim() ?? '';
    return { criterion: c.criterion, points: roundPoints(g.points), comment: comment === '' ? null : comment };
  });
  const sum = roundPoints(marks.reduce((s, c) => s + c.points, 0));
  if (m.points !== undefined && roundPoints(m.points) !== sum) {
    details.push({ field: `${at}.points`, message: `must equal the sum of the criteria points (${formatPoints(sum)}), or be left out` });
    return null;
  }
  return { points: sum, criteria: marks };
}

/** Criterion marks as a marker reads them: each with its criterion's maximum (a criterion no longer in the question keeps 0). */
export function criterionMarksView(q: Question | undefined, marks: CriterionMark[] | null): Array<CriterionMark & { maxPoints: number }> | null {
  if (!marks) return null;
  const max = new Map((q ? (criteriaOf(q) ?? []) : []).map((c) => [c.criterion, c.points]));
  return marks.map((c) => ({ criterion: c.criterion, points: c.points, maxPoints: max.get(c.criterion) ?? 0, comment: c.comment }));
}
