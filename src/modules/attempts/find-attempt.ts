import type { Queryable, Tx } from '../../platform/db.js';
import { tenantInstitution, type Tenant } from '../../platform/principal.js';
import type { AnswerValue } from './answer-values.js';
import type { Delivery } from '../catalog/delivery.js';

/**
 * The attempts module's reads of an attempt and its answers, for its own
 * services and the modules above it (marking, proctoring, the student app,
 * the portal). Writes stay in attempts-repo.ts, private to this module.
 */
export interface Attempt {
  assignmentId: string;
  institutionId: string;
  userId: string;
  testVersionId: string;
  startedAt: Date;
  deadlineAt: Date;
  /** When the attempt closed: submitted, or cancelled with its assignment (submittedBy 'cancelled'). */
  submittedAt: Date | null;
  submittedBy: SubmittedBy | null;
  /** What the candidate was shown (drawn at begin); null for attempts begun before deliveries were stored. */
  delivery: Delivery | null;
}

/** Who closed an attempt: the student, the deadline (auto-submit), or the institution cancelling its assignment. */
export type SubmittedBy = 'student' | 'deadline' | 'cancelled';

export interface StoredAnswer {
  questionId: string;
  value: AnswerValue;
  version: number;
  savedAt: Date;
}

export const ATTEMPT_COLUMNS = 'assignment_id, institution_id, user_id, test_version_id, started_at, deadline_at, submitted_at, submitted_by, delivery';

/** A row of ATTEMPT_COLUMNS as pg returns it. */
type AttemptRecord = {
  assignment_id: string;
  institution_id: string;
  user_id: string;
  test_version_id: string;
  started_at: Date;
  deadline_at: Date;
  submitted_at: Date | null;
  submitted_by: SubmittedBy | null;
  delivery: Delivery | null;
};

export function toAttempt(r: AttemptRecord): Attempt {
  return {
    assignmentId: r.assignment_id,
    institutionId: r.institution_id,
    userId: r.user_id,
    testVersionId: r.test_version_id,
    startedAt: r.started_at,
    deadlineAt: r.deadline_at,
    submittedAt: r.submitted_at,
    submittedBy: r.submitted_by,
    delivery: r.delivery,
  };
}

export async function findAttempt(db: Queryable, institutionId: string, assignmentId: string): Promise<Attempt | null> {
  const { rows } = await db.query<AttemptRecord>(`SELECT ${ATTEMPT_COLUMNS} FROM attempts WHERE assignment_id = $1 AND institution_id = $2`, [
    assignmentId,
    institutionId,
  ]);
  return rows[0] ? toAttempt(rows[0]) : null;
}

/** Unscoped, for the deadline job (which acts for no tenant in particular). */
export async function findAttemptById(db: Queryable, assignmentId: string): Promise<Attempt | null> {
  const { rows } = await db.query<AttemptRecord>(`SELECT ${ATTEMPT_COLUMNS} FROM attempts WHERE assignment_id = $1`, [assignmentId]);
  return rows[0] ? toAttempt(rows[0]) : null;
}

/**
 * Locks the attempt row. Saves take a share lock, submission and marking an
 * update lock, so a save either commits before the submission reads the
 * answers or sees the attempt submitted. Lock order everywhere: the attempt,
 * then the assignment (inside applyTransition).
 */
export async function lockAttempt(tx: Tx, assignmentId: string, mode: 'share' | 'update', tenant: Tenant): Promise<Attempt | null> {
  const { rows } = await tx.query<AttemptRecord>(
    `SELECT ${ATTEMPT_COLUMNS} FROM attempts WHERE assignment_id = $1 AND ($2::text IS NULL OR institution_id = $2)
       FOR ${mode === 'share' ? 'SHARE' : 'UPDATE'}`,
    [assignmentId, tenantInstitution(tenant)],
  );
  return rows[0] ? toAttempt(rows[0]) : null;
}

/**
 * Update locks on many attempts at once, for the deadline's batches (which
 * act for no tenant in particular): taken in id order, so two batches, or a
 * batch and a single submission, never wait on each other in a cycle.
 */
export async function lockAttemptsForDeadline(tx: Tx, assignmentIds: readonly string[]): Promise<Attempt[]> {
  const { rows } = await tx.query<AttemptRecord>(
    `SELECT ${ATTEMPT_COLUMNS} FROM attempts WHERE assignment_id = ANY($1::text[]) ORDER BY assignment_id FOR UPDATE`,
    [assignmentIds],
  );
  return rows.map(toAttempt);
}

/** The answers of many attempts (read under their locks), by assignment id. */
export async function listAnswersOf(db: Queryable, assignmentIds: readonly string[]): Promise<Map<string, StoredAnswer[]>> {
  const { rows } = await db.query<{ assignment_id: string; question_id: string; value: AnswerValue; version: number; saved_at: Date }>(
    'SELECT assignment_id, question_id, value, version, saved_at FROM answers WHERE assignment_id = ANY($1::text[])',
    [assignmentIds],
  );
  const byAttempt = new Map<string, StoredAnswer[]>();
  for (const r of rows) {
    const list = byAttempt.get(r.assignment_id) ?? [];
    list.push({ questionId: r.question_id, value: r.value, version: r.version, savedAt: r.saved_at });
    byAttempt.set(r.assignment_id, list);
  }
  return byAttempt;
}

export async function listAnswers(db: Queryable, institutionId: string, assignmentId: string): Promise<StoredAnswer[]> {
  const { rows } = await db.query<{ question_id: string; value: AnswerValue; version: number; saved_at: Date }>(
    'SELECT question_id, value, version, saved_at FROM answers WHERE assignment_id = $1 AND institution_id = $2',
    [assignmentId, institutionId],
  );
  return rows.map((r) => ({ questionId: r.question_id, value: r.value, version: r.version, savedAt: r.saved_at }));
}

