import type { Queryable, Tx } from '../../platform/db.js';
import type { AnswerValue } from './answer-values.js';
import type { Attempt, SubmittedBy } from './find-attempt.js';
import { notifyStatusChange } from '../lifecycle/status-changes.js';

/** SQL for attempts and their autosaved answers. Every query names the institution. */
export async function insertAttempt(tx: Tx, a: Omit<Attempt, 'submittedAt' | 'submittedBy'>): Promise<void> {
  await tx.query(
    `INSERT INTO attempts (assignment_id, institution_id, user_id, test_version_id, started_at, deadline_at, delivery)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [a.assignmentId, a.institutionId, a.userId, a.testVersionId, a.startedAt, a.deadlineAt, a.delivery ? JSON.stringify(a.delivery) : null],
  );
}

export async function markAttemptSubmitted(tx: Tx, assignmentId: string, at: Date, by: SubmittedBy): Promise<void> {
  await tx.query('UPDATE attempts SET submitted_at = $2, submitted_by = $3 WHERE assignment_id = $1', [assignmentId, at, by]);
}

/** One student request's answers, as the autosave statement takes them. */
export interface SessionSave {
  sessionIdHash: string;
  assignmentId: string;
  institutionId: string;
  answers: Array<{ questionId: string; value: AnswerValue; version: number }>;
  now: Date;
  deadlineNotBefore: Date;
}

/**
 * One request's save (the usual case: see saveAnswersForSessions for
 * several): stores each answer unless a newer version is stored, only while
 * the attempt is open AND the session (by its row's key) still exists,
 * unexpired, for the attempt's user and institution. A lighter statement
 * than the batch's, which PostgreSQL runs for less. Returns what it wrote.
 */
export async function saveAnswersForSession(db: Queryable, a: SessionSave): Promise<Map<string, number>> {
  const { rows } = await db.query<{ question_id: string; version: number }>({
    name: 'attempts-save-answers',
    text: `WITH open AS (
       SELECT t.assignment_id, t.institution_id
         FROM attempts t
         JOIN student_sessions s ON s.id_hash = $8 AND s.user_id = t.user_id AND s.institution_id = t.institution_id AND s.expires_at > $6
        WHERE t.assignment_id = $1 AND t.institution_id = $2 AND t.submitted_at IS NULL AND t.deadline_at >= $7
        FOR SHARE OF t
     )
     INSERT INTO answers AS s (assignment_id, institution_id, question_id, value, version, saved_at)
     SELECT open.assignment_id, open.institution_id, x.question_id, x.value::jsonb, x.version, $6
       FROM open, unnest($3::text[], $4::text[], $5::bigint[]) AS x (question_id, value, version)
     ON CONFLICT (assignment_id, question_id) DO UPDATE
        SET value = EXCLUDED.value, version = EXCLUDED.version, saved_at = EXCLUDED.saved_at
      WHERE s.version < EXCLUDED.version
     RETURNING question_id, version`,
    values: [
      a.assignmentId,
      a.institutionId,
      a.answers.map((x) => x.questionId),
      a.answers.map((x) => JSON.stringify(x.value)),
      a.answers.map((x) => x.version),
      // ISO strings: the driver's own Date formatting costs more on this hot path.
      a.now.toISOString(),
      a.deadlineNotBefore.toISOString(),
      a.sessionIdHash,
    ],
  });
  return new Map(rows.map((r) => [r.question_id, r.version]));
}

/**
 * The autosave's statement for several requests at once (save-batcher.ts),
 * the batch form of saveAnswersForSession: stores each answer unless a
 * newer version is stored, only while its request's attempt is open AND that
 * request's session (by its row's key) still exists, unexpired, for the
 * attempt's user and institution. Every request is checked on its own
 * (`req`), so one with an ended session stores nothing while the others
 * store theirs. Each request's attempt and session are found by a LATERAL
 * lookup of its own (LIMIT 1 keeps it from being flattened into a join over
 * the batch), and the rows come as JSON, not arrays, so PostgreSQL keeps one
 * generic plan (see READ_ASSIGNMENTS_SQL).
 */
export const SAVE_ANSWERS_BATCH_SQL = `WITH x AS MATERIALIZED (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
           AS x (req int, session_hash text, assignment_id text, institution_id text, question_id text, value text, version bigint, saved_at timestamptz, deadline_min timestamptz)
     ), open AS (
       SELECT r.req
         FROM (SELECT DISTINCT ON (req) req, session_hash, assignment_id, institution_id, saved_at, deadline_min FROM x) r
         CROSS JOIN LATERAL (
           SELECT 1
             FROM attempts t
             JOIN student_sessions s ON s.id_hash = r.session_hash AND s.user_id = t.user_id AND s.institution_id = t.institution_id AND s.expires_at > r.saved_at
            WHERE t.assignment_id = r.assignment_id AND t.institution_id = r.institution_id AND t.submitted_at IS NULL AND t.deadline_at >= r.deadline_min
            LIMIT 1
              FOR SHARE OF t) live
     )
     INSERT INTO answers AS s (assignment_id, institution_id, question_id, value, version, saved_at)
     SELECT x.assignment_id, x.institution_id, x.question_id, x.value::jsonb, x.version, x.saved_at
       FROM x JOIN open ON open.req = x.req
      -- One order for every writer, so two batches touching the same rows cannot deadlock.
      ORDER BY x.assignment_id, x.question_id
     ON CONFLICT (assignment_id, question_id) DO UPDATE
        SET value = EXCLUDED.value, version = EXCLUDED.version, saved_at = EXCLUDED.saved_at
      WHERE s.version < EXCLUDED.version
     RETURNING assignment_id, question_id, version`;

/**
 * Runs SAVE_ANSWERS_BATCH_SQL. No (assignment, question) may appear twice in
 * one call: an upsert cannot touch a row twice. Returns, per request, what
 * it wrote; a shortfall means the session ended, the attempt closed, or
 * those saves were stale.
 */
export async function saveAnswersForSessions(db: Queryable, saves: SessionSave[]): Promise<Array<Map<string, number>>> {
  const rows: object[] = [];
  // (assignment, question) is unique in a call, so it names its request.
  const byKey = new Map<string, number>();
  saves.forEach((save, req) => {
    const savedAt = save.now.toISOString();
    const deadlineMin = save.deadlineNotBefore.toISOString();
    for (const a of save.answers) {
      byKey.set(`${save.assignmentId} ${a.questionId}`, req);
      rows.push({
        req,
        session_hash: save.sessionIdHash,
        assignment_id: save.assignmentId,
        institution_id: save.institutionId,
        question_id: a.questionId,
        // The value's JSON text, cast to jsonb by the statement as the single-request one does.
        value: JSON.stringify(a.value),
        version: a.version,
        saved_at: savedAt,
        deadline_min: deadlineMin,
      });
    }
  });
  const result = await db.query<{ assignment_id: string; question_id: string; version: number }>({
    name: 'attempts-save-answers-batch',
    text: SAVE_ANSWERS_BATCH_SQL,
    values: [JSON.stringify(rows)],
  });
  const written = saves.map(() => new Map<string, number>());
  for (const r of result.rows) {
    written[byKey.get(`${r.assignment_id} ${r.question_id}`)!]!.set(r.question_id, r.version);
  }
  return written;
}

export async function answerVersions(db: Queryable, institutionId: string, assignmentId: string, questionIds: string[]): Promise<Map<string, number>> {
  const { rows } = await db.query<{ question_id: string; version: number }>(
    'SELECT question_id, version FROM answers WHERE assignment_id = $1 AND institution_id = $2 AND question_id = ANY($3)',
    [assignmentId, institutionId, questionIds],
  );
  return new Map(rows.map((r) => [r.question_id, r.version]));
}

/**
 * Moves an open attempt's deadline (extra time granted or changed); the caller holds the attempt's update lock.
 * The open page hears of it in the same transaction (lifecycle/status-changes.ts).
 */
export async function setAttemptDeadline(tx: Tx, assignmentId: string, deadlineAt: Date): Promise<void> {
  await tx.query('UPDATE attempts SET deadline_at = $2 WHERE assignment_id = $1 AND submitted_at IS NULL', [assignmentId, deadlineAt]);
  await notifyStatusChange(tx, assignmentId);
}
