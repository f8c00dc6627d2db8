import type { Queryable } from '../../platform/db.js';
import { batchedPerPool } from '../../platform/turn-batcher.js';
import type { Score } from '../marking/score.js';
import type { AssignmentStatus } from '../lifecycle/state-machine.js';
import type { Accommodations } from './accommodations.js';
import { JOIN_USER } from '../lifecycle/assignment-user-join.js';

export interface AssignmentRow {
  id: string;
  institutionId: string;
  userId: string;
  externalUserId: string;
  testId: string;
  testVersionId: string;
  status: AssignmentStatus;
  callbackUrl: string;
  dueAt: Date | null;
  metadata: Record<string, unknown>;
  /** The metadata as the partner sent it (compact, key order kept): what reads and events echo. */
  metadataJson: string;
  linkVersion: number;
  score: Score | null;
  accommodations: Accommodations | null;
  createdAt: Date;
  startedAt: Date | null;
  submittedAt: Date | null;
  completedAt: Date | null;
  cancelledAt: Date | null;
  /** False for an assignment created with a test-mode key. */
  livemode: boolean;
}

const COLUMNS = `a.id, a.institution_id, a.user_id, u.external_user_id, a.test_id, a.test_version_id, a.status, a.callback_url,
  a.due_at, a.metadata, a.metadata_json, a.link_version, a.score, a.accommodations, a.created_at, a.started_at, a.submitted_at, a.completed_at, a.cancelled_at, a.livemode`;

/** A row of COLUMNS as pg returns it. */
type AssignmentRecord = {
  id: string;
  institution_id: string;
  user_id: string;
  external_user_id: string;
  test_id: string;
  test_version_id: string;
  status: AssignmentStatus;
  callback_url: string;
  due_at: Date | null;
  metadata: Record<string, unknown> | null;
  metadata_json: string | null;
  link_version: number;
  score: Score | null;
  accommodations: Accommodations | null;
  created_at: Date;
  started_at: Date | null;
  submitted_at: Date | null;
  completed_at: Date | null;
  cancelled_at: Date | null;
  livemode: boolean;
};

/** The partner read's row: the assignment and its proctoring session's count columns, which proctoring reads (proctoring-summary.ts). */
type ReadRecord = AssignmentRecord & { [proctoringColumn: string]: unknown };

function toRow(r: AssignmentRecord): AssignmentRow {
  return {
    id: r.id,
    institutionId: r.institution_id,
    userId: r.user_id,
    externalUserId: r.external_user_id,
    testId: r.test_id,
    testVersionId: r.test_version_id,
    status: r.status,
    callbackUrl: r.callback_url,
    dueAt: r.due_at,
    metadata: r.metadata ?? {},
    // Rows from before metadata_json fall back to the jsonb's own key order.
    metadataJson: r.metadata_json ?? JSON.stringify(r.metadata ?? {}),
    linkVersion: r.link_version,
    score: r.score,
    accommodations: r.accommodations,
    createdAt: r.created_at,
    startedAt: r.started_at,
    submittedAt: r.submitted_at,
    completedAt: r.completed_at,
    cancelledAt: r.cancelled_at,
    livemode: r.livemode,
  };
}

/**
 * The tenant-scoped read by id, as a prepared statement. The row is found by
 * primary key first (the MATERIALIZED CTE is an optimisation fence) and the
 * tenant checked on that one row. Why the fence: a prepared statement keeps
 * the generic plan it made on its fifth run for the connection's life (until
 * ANALYZE invalidates it). Made while the table held a handful of rows, with
 * `a.id = $1 AND a.institution_id = $2` in one WHERE, that plan could pick
 * the tenant's listing index (institution_id, created_at), which cost the
 * same on a one-page table; after a burst of creates every read then walked
 * all of the institution's index entries (20,000 rows: ~2,500 buffers and
 * ~10 ms a read) until autoanalyze ran. With the fence no plan can do that.
 */
export const FIND_ASSIGNMENT_SQL = `WITH a AS MATERIALIZED (SELECT * FROM assignments WHERE id = $1)
  SELECT ${COLUMNS} FROM a ${JOIN_USER} WHERE a.institution_id = $2`;

/**
 * Tenant-scoped read: another institution's id is indistinguishable from a
 * missing one. With `livemode` (a partner key's mode) an assignment of the
 * other mode is missing too; the mode is compared on the one row the primary
 * key found, so the statement and its plan stay the same. Staff pass nothing
 * and see both modes.
 */
export async function findAssignment(db: Queryable, institutionId: string, assignmentId: string, livemode?: boolean): Promise<AssignmentRow | null> {
  const { rows } = await db.query<AssignmentRecord>({ name: 'find-assignment', text: FIND_ASSIGNMENT_SQL, values: [assignmentId, institutionId] });
  const row = rows[0] ? toRow(rows[0]) : null;
  return row && (livemode === undefined || row.livemode === livemode) ? row : null;
}

/**
 * The partner read's statement: the row as FIND_ASSIGNMENT_SQL finds it and,
 * in the same round trip, its proctoring counts (null columns when the test
 * is not proctored or the attempt has not begun).
 */
export const READ_ASSIGNMENT_SQL = `WITH a AS MATERIALIZED (SELECT * FROM assignments WHERE id = $1)
  SELECT ${COLUMNS}, ps.flags_critical, ps.flags_warning, ps.flags_info, ps.critical_unreviewed, ps.confirmed, ps.dismissed
    FROM a ${JOIN_USER} LEFT JOIN proctoring_sessions ps ON ps.assignment_id = a.id
   WHERE a.institution_id = $2`;

/**
 * READ_ASSIGNMENT_SQL for several reads at once: $1 is a JSON array of
 * `{"n", "id", "institution_id"}`, `n` saying which read a row answers.
 * Each read is its own LATERAL subquery found by primary key alone (LIMIT 1
 * keeps the planner from flattening it into a join over all reads), and its
 * tenant is checked outside, on the row found: a plan made while the tables
 * were tiny could otherwise hash-join the whole table, or walk the tenant's
 * listing index as FIND_ASSIGNMENT_SQL explains. The reads come as JSON,
 * not arrays, because the planner estimates a JSON set at a fixed size: an
 * array's exact length makes every custom plan look cheaper than the
 * generic one, and PostgreSQL would then plan the statement afresh on every
 * run instead of keeping its generic plan.
 */
export const READ_ASSIGNMENTS_SQL = `SELECT k.n, r.*
  FROM jsonb_to_recordset($1::jsonb) AS k (n int, id text, institution_id text)
  CROSS JOIN LATERAL (
    SELECT ${COLUMNS}, ps.flags_critical, ps.flags_warning, ps.flags_info, ps.critical_unreviewed, ps.confirmed, ps.dismissed
      FROM assignments a ${JOIN_USER} LEFT JOIN proctoring_sessions ps ON ps.assignment_id = a.id
     WHERE a.id = k.id
     LIMIT 1) r
 WHERE r.institution_id = k.institution_id`;

type ReadResult = { row: AssignmentRow; proctoringCounts: Record<string, unknown> } | null;

type ReadKey = { institutionId: string; assignmentId: string };

/** The partner reads of one event-loop turn, as one statement (turn-batcher.ts); a read alone, or in a transaction, runs READ_ASSIGNMENT_SQL. */
const readBatched = batchedPerPool<ReadKey, ReadResult>({
  async one(db, { institutionId, assignmentId }) {
    const { rows } = await db.query<ReadRecord>({ name: 'read-assignment', text: READ_ASSIGNMENT_SQL, values: [assignmentId, institutionId] });
    const r = rows[0];
    return r ? { row: toRow(r), proctoringCounts: r } : null;
  },
  async many(pool, keys) {
    const { rows } = await pool.query<ReadRecord & { n: number }>({
      name: 'read-assignments',
      text: READ_ASSIGNMENTS_SQL,
      values: [JSON.stringify(keys.map((k, n) => ({ n, id: k.assignmentId, institution_id: k.institutionId })))],
    });
    const found: ReadResult[] = keys.map(() => null);
    for (const r of rows) found[r.n] = { row: toRow(r), proctoringCounts: r };
    return found;
  },
});

/**
 * findAssignment for the partner read: the row and the raw proctoring counts
 * (see proctoring-summary.ts). On a pool, the reads that arrive in one turn
 * of the event loop share one statement; in a transaction it reads alone.
 */
export async function readAssignment(
  db: Queryable,
  institutionId: string,
  assignmentId: string,
  livemode?: boolean,
): Promise<ReadResult> {
  const found = await readBatched(db, { institutionId, assignmentId });
  return found && (livemode === undefined || found.row.livemode === livemode) ? found : null;
}

/** Unscoped read by id, for flows that authenticate another way (signed start link, student session, operator). */
export async function findAssignmentById(db: Queryable, assignmentId: string): Promise<AssignmentRow | null> {
  const { rows } = await db.query<AssignmentRecord>(`SELECT ${COLUMNS} FROM assignments a ${JOIN_USER} WHERE a.id = $1`, [assignmentId]);
  return rows[0] ? toRow(rows[0]) : null;
}

/** Locks the row for a change by the institution (PATCH, cancel, a new start link). */
export async function lockAssignmentRow(db: Queryable, institutionId: string, assignmentId: string): Promise<AssignmentRow | null> {
  const { rows } = await db.query<AssignmentRecord>(
    `SELECT ${COLUMNS} FROM assignments a ${JOIN_USER} WHERE a.id = $1 AND a.institution_id = $2 FOR UPDATE OF a`,
    [assignmentId, institutionId],
  );
  return rows[0] ? toRow(rows[0]) : null;
}

/**
 * Finds or creates the service's user for (institution, externalUserId) (email and
 * name follow the latest request) and inserts the assignment for them, in one
 * statement: atomic without an explicit transaction, one round trip.
 *
 * With `idempotencyKey`, the same statement first writes the key's row, already
 * holding the response to replay, and inserts the user and the assignment only
 * if that row went in: a key already taken (or being taken by a request still
 * in flight, whose outcome the insert waits for) writes nothing and returns
 * false. The key row refers to the assignment inserted after it, which the
 * foreign key allows because it is checked at the end of the statement.
 */
export async function insertAssignmentForUser(
  db: Queryable,
  a: {
    id: string;
    institutionId: string;
    user: { id: string; externalUserId: string; email: string; name: string | null };
    testId: string;
    testVersionId: string;
    callbackUrl: string;
    dueAt: Date | null;
    /** Compact JSON text of the metadata object, as sent. */
    metadataJson: string;
    accommodations: Accommodations | null;
    livemode: boolean;
    now: Date;
  },
  idempotencyKey?: { key: string; scope: string; fingerprint: string; responseStatus: number; responseBody: string },
): Promise<boolean> {
  const values = [
    a.user.id, a.institutionId, a.user.externalUserId, a.user.email, a.user.name, a.now, a.id, a.testId, a.testVersionId,
    a.callbackUrl, a.dueAt, a.metadataJson, a.accommodations === null ? null : JSON.stringify(a.accommodations), a.livemode,
  ];
  if (!idempotencyKey) {
    await db.query({ name: 'insert-assignment-for-user', text: INSERT_ASSIGNMENT_SQL, values });
    return true;
  }
  const k = idempotencyKey;
  const { rowCount } = await db.query({
    name: 'insert-assignment-for-user-keyed',
    text: INSERT_ASSIGNMENT_WITH_KEY_SQL,
    values: [...values, k.scope, k.key, k.fingerprint, k.responseStatus, k.responseBody],
  });
  return rowCount === 1;
}

/** The user upsert's conflict clause and the assignment insert that reads its `u`, shared by both insert statements. */
const UPSERT_USER = `ON CONFLICT (institution_id, external_user_id)
       DO UPDATE SET email = EXCLUDED.email, name = COALESCE(EXCLUDED.name, users.name), updated_at = EXCLUDED.updated_at
       RETURNING id`;
const INSERT_ASSIGNMENT_FROM_U = `INSERT INTO assignments (id, institution_id, user_id, test_id, test_version_id, status, callback_url, due_at, metadata, metadata_json, accommodations, created_at, livemode)
     SELECT $7, $2, u.id, $8, $9, 'assigned', $10, $11, $12::text::jsonb, $12::text, $13, $6, $14 FROM u`;

const INSERT_ASSIGNMENT_SQL = `WITH u AS (
       INSERT INTO users (id, institution_id, external_user_id, email, name, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6)
       ${UPSERT_USER}
     )
     ${INSERT_ASSIGNMENT_FROM_U}`;

const INSERT_ASSIGNMENT_WITH_KEY_SQL = `WITH k AS (
       INSERT INTO idempotency_keys (institution_id, livemode, scope, key, fingerprint, response_status, response_body, assignment_id, created_at)
       VALUES ($2, $14, $15, $16, $17, $18, $19, $7, $6)
       ON CONFLICT DO NOTHING
       RETURNING 1
     ), u AS (
       INSERT INTO users (id, institution_id, external_user_id, email, name, created_at, updated_at)
       SELECT $1, $2, $3, $4, $5, $6, $6 FROM k
       ${UPSERT_USER}
     )
     ${INSERT_ASSIGNMENT_FROM_U}`;

/** The accommodations as committed now; read by "Begin test" after it locked the row, so a concurrent PATCH is never missed. */
export async function accommodationsOf(db: Queryable, institutionId: string, assignmentId: string): Promise<Accommodations | null> {
  const { rows } = await db.query('SELECT accommodations FROM assignments WHERE id = $1 AND institution_id = $2', [assignmentId, institutionId]);
  return rows[0]?.accommodations ?? null;
}

/** Writes a PATCH's fields (the caller holds the row lock and runs the state machine). */
export async function writeAssignmentFields(
  db: Queryable,
  institutionId: string,
  assignmentId: string,
  fields: { dueAt?: Date | null; accommodations?: Accommodations | null },
): Promise<void> {
  await db.query(
    `UPDATE assignments SET due_at = CASE WHEN $3 THEN $4::timestamptz ELSE due_at END,
                            accommodations = CASE WHEN $5 THEN $6::jsonb ELSE accommodations END
      WHERE id = $1 AND institution_id = $2`,
    [
      assignmentId,
      institutionId,
      fields.dueAt !== undefined,
      fields.dueAt ?? null,
      fields.accommodations !== undefined,
      fields.accommodations ? JSON.stringify(fields.accommodations) : null,
    ],
  );
}

/** Revokes every start link issued so far; returns the new link version. */
export async function bumpLinkVersion(db: Queryable, institutionId: string, assignmentId: string): Promise<number> {
  const { rows } = await db.query<{ link_version: number }>(
    'UPDATE assignments SET link_version = link_version + 1 WHERE id = $1 AND institution_id = $2 RETURNING link_version',
    [assignmentId, institutionId],
  );
  return rows[0]!.link_version;
}
