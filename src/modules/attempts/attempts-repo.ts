import type { Queryable, Tx } from '../../platform/db.js';
import type { AnswerValue } from '../marking/auto-mark.js';

/** SQL for attempts and their autosaved answers. Every query names the institution. */
export interface Attempt {
  assignmentId: string;
  institutionId: string;
  userId: string;
  testVersionId: string;
  startedAt: Date;
  deadlineAt: Date;
  submittedAt: Date | null;
  submittedBy: 'student' | 'deadline' | null;
}

export interface StoredAnswer {
  questionId: string;
  value: AnswerValue;
  version: number;
  savedAt: Date;
}

const COLUMNS = 'assignment_id, institution_id, user_id, test_version_id, started_at, deadline_at, submitted_at, submitted_by';

function toAttempt(r: Record<string, any>): Attempt {
  return {
    assignmentId: r.assignment_id,
    institutionId: r.institution_id,
    userId: r.user_id,
    testVersionId: r.test_version_id,
    startedAt: r.started_at,
    deadlineAt: r.deadline_at,
    submittedAt: r.submitted_at,
    submittedBy: r.submitted_by,
  };
}

export async function insertAttempt(tx: Tx, a: Omit<Attempt, 'submittedAt' | 'submittedBy'>): Promise<void> {
  await tx.query(
    `INSERT INTO attempts (assignment_id, institution_id, user_id, test_version_id, started_at, deadline_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [a.assignmentId, a.institutionId, a.userId, a.testVersionId, a.startedAt, a.deadlineAt],
  );
}

export async function findAttempt(db: Queryable, institutionId: string, assignmentId: string): Promise<Attempt | null> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM attempts WHERE assignment_id = $1 AND institution_id = $2`, [
    assignmentId,
    institutionId,
  ]);
  return rows[0] ? toAttempt(rows[0]) : null;
}

/** Unscoped, for the deadline job (which acts for no tenant in particular). */
export async function findAttemptById(db: Queryable, assignmentId: string): Promise<Attempt | null> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM attempts WHERE assignment_id = $1`, [assignmentId]);
  return rows[0] ? toAttempt(rows[0]) : null;
}

/**
 * Locks the attempt row. Saves take a share lock, submission and marking an
 * update lock, so a save either commits before the submission reads the
 * answers or sees the attempt submitted. Lock order everywhere: the attempt,
 * then the assignment (inside applyTransition).
 */
export async function lockAttempt(tx: Tx, assignmentId: string, mode: 'share' | 'update', institutionId?: string): Promise<Attempt | null> {
  const { rows } = await tx.query(
    `SELECT ${COLUMNS} FROM attempts WHERE assignment_id = $1 AND ($2::text IS NULL OR institution_id = $2)
       FOR ${mode === 'share' ? 'SHARE' : 'UPDATE'}`,
    [assignmentId, institutionId ?? null],
  );
  return rows[0] ? toAttempt(rows[0]) : null;
}

export async function markAttemptSubmitted(tx: Tx, assignmentId: string, at: Date, by: 'student' | 'deadline'): Promise<void> {
  await tx.query('UPDATE attempts SET submitted_at = $2, submitted_by = $3 WHERE assignment_id = $1', [assignmentId, at, by]);
}

/**
 * Stores an answer unless the stored one has the same or a higher version.
 * Returns the version now stored for the question.
 */
export async function upsertAnswer(
  tx: Tx,
  a: { assignmentId: string; institutionId: string; questionId: string; value: AnswerValue; version: number; now: Date },
): Promise<number> {
  const { rows } = await tx.query<{ version: number }>(
    `INSERT INTO answers AS s (assignment_id, institution_id, question_id, value, version, saved_at)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6)
     ON CONFLICT (assignment_id, question_id) DO UPDATE
        SET value = EXCLUDED.value, version = EXCLUDED.version, saved_at = EXCLUDED.saved_at
      WHERE s.version < EXCLUDED.version
     RETURNING version`,
    [a.assignmentId, a.institutionId, a.questionId, JSON.stringify(a.value), a.version, a.now],
  );
  if (rows[0]) return rows[0].version;
  const current = await tx.query<{ version: number }>(
    'SELECT version FROM answers WHERE assignment_id = $1 AND institution_id = $2 AND question_id = $3',
    [a.assignmentId, a.institutionId, a.questionId],
  );
  return current.rows[0]!.version;
}

export async function listAnswers(db: Queryable, institutionId: string, assignmentId: string): Promise<StoredAnswer[]> {
  const { rows } = await db.query(
    'SELECT question_id, value, version, saved_at FROM answers WHERE assignment_id = $1 AND institution_id = $2',
    [assignmentId, institutionId],
  );
  return rows.map((r) => ({ questionId: r.question_id, value: r.value, version: r.version, savedAt: r.saved_at }));
}
