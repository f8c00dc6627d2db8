import type { MarkSource } from './score.js';
import type { Queryable, Tx } from '../../platform/db.js';

/** One criterion's mark, in the question's criterion order; the mark's points are their sum. */
export interface CriterionMark {
  criterion: string;
  points: number;
  comment: string | null;
}

/** SQL for per-question marks. Every query names the institution. */
export interface StoredMark {
  questionId: string;
  points: number;
  /** Per-criterion marks of a question marked against its criteria; null otherwise (one points box, auto marks, older marks). */
  criteria: CriterionMark[] | null;
  source: MarkSource;
  comment: string | null;
  markedBy: string | null;
  markedAt: Date;
}

export async function insertAutoMarks(
  tx: Tx,
  input: { assignmentId: string; institutionId: string; marks: Array<{ questionId: string; points: number }>; now: Date },
): Promise<void> {
  if (input.marks.length === 0) return;
  await tx.query(
    `INSERT INTO marks (assignment_id, institution_id, question_id, points, source, marked_at)
     SELECT $1, $2, m.question_id, m.points, 'auto', $3
       FROM unnest($4::text[], $5::numeric[]) AS m (question_id, points)
     ON CONFLICT (assignment_id, question_id) DO NOTHING`,
    [input.assignmentId, input.institutionId, input.now, input.marks.map((m) => m.questionId), input.marks.map((m) => m.points)],
  );
}

/** The model's marks (decide mode), `marked_by` 'ai:<model>', with its points per criterion. A mark already there (a reviewer's) is kept. */
export async function insertAiMarks(
  tx: Tx,
  input: {
    assignmentId: string;
    institutionId: string;
    marks: Array<{ questionId: string; points: number; criteria: CriterionMark[] | null; markedBy: string }>;
    now: Date;
  },
): Promise<void> {
  if (input.marks.length === 0) return;
  await tx.query(
    `INSERT INTO marks (assignment_id, institution_id, question_id, points, criteria, source, marked_by, marked_at)
     SELECT $1, $2, m.question_id, m.points, m.criteria::jsonb, 'ai', m.marked_by, $3
       FROM unnest($4::text[], $5::numeric[], $6::text[], $7::text[]) AS m (question_id, points, marked_by, criteria)
     ON CONFLICT (assignment_id, question_id) DO NOTHING`,
    [
      input.assignmentId,
      input.institutionId,
      input.now,
      input.marks.map((m) => m.questionId),
      input.marks.map((m) => m.points),
      input.marks.map((m) => m.markedBy),
      input.marks.map((m) => (m.criteria === null ? null : JSON.stringify(m.criteria))),
    ],
  );
}

/** A reviewer's mark replaces their earlier mark for the same question. */
export async function upsertReviewerMark(
  tx: Tx,
  m: {
    assignmentId: string;
    institutionId: string;
    questionId: string;
    points: number;
    criteria: CriterionMark[] | null;
    comment: string | null;
    markedBy: string | null;
    now: Date;
  },
): Promise<void> {
  await tx.query(
    `INSERT INTO marks (assignment_id, institution_id, question_id, points, criteria, source, comment, marked_by, marked_at)
     VALUES ($1, $2, $3, $4, $5, 'reviewer', $6, $7, $8)
     ON CONFLICT (assignment_id, question_id) DO UPDATE
        SET points = EXCLUDED.points, criteria = EXCLUDED.criteria, comment = EXCLUDED.comment, marked_by = EXCLUDED.marked_by, marked_at = EXCLUDED.marked_at
      WHERE marks.source = 'reviewer'`,
    [m.assignmentId, m.institutionId, m.questionId, m.points, m.criteria === null ? null : JSON.stringify(m.criteria), m.comment, m.markedBy, m.now],
  );
}

export async function listMarks(db: Queryable, institutionId: string, assignmentId: string): Promise<StoredMark[]> {
  const { rows } = await db.query(
    `SELECT question_id, points, criteria, source, comment, marked_by, marked_at FROM marks
      WHERE assignment_id = $1 AND institution_id = $2`,
    [assignmentId, institutionId],
  );
  return rows.map((r) => ({
    questionId: r.question_id,
    points: r.points,
    criteria: r.criteria ?? null,
    source: r.source,
    comment: r.comment,
    markedBy: r.marked_by,
    markedAt: r.marked_at,
  }));
}
