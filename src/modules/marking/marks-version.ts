import { createHash } from 'node:crypto';
import { AppError } from '../../platform/errors.js';
import type { Queryable } from '../../platform/db.js';
import { listMarks, type StoredMark } from './marks-repo.js';

/**
 * A fingerprint of an attempt's marks (every question's points, criterion
 * marks, comment, marker and time). A reviewer's form carries the version it was rendered
 * from; saving or finishing from an older version is refused, so one
 * reviewer's marks are never silently replaced by another's.
 */
export function marksVersion(marks: readonly StoredMark[]): string {
  const canonical = [...marks]
    .sort((a, b) => (a.questionId < b.questionId ? -1 : a.questionId > b.questionId ? 1 : 0))
    // Criterion marks join the tuple only when there are some, so a mark without them keeps its earlier version (and drafts based on it stay current).
    .map((m) => [m.questionId, m.points, m.source, m.comment, m.markedBy, m.markedAt.toISOString(), ...(m.criteria ? [m.criteria] : [])]);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url').slice(0, 22);
}

/** The current version of an assignment's marks, as a reviewer's form would carry it. */
export async function currentMarksVersion(db: Queryable, institutionId: string, assignmentId: string): Promise<string> {
  return marksVersion(await listMarks(db, institutionId, assignmentId));
}

/** The marks changed after the reviewer's form was rendered (another reviewer, or the operator API). */
export class MarksChangedError extends AppError {
  constructor() {
    super('invalid_state', 'The marks of this assignment changed since you opened it; nothing was saved.');
  }
}
