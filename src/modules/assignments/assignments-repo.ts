import type { Queryable } from '../../platform/db.js';
import { batchedPerPool } from '../../platform/turn-batcher.js';
import type { Accommodations } from './accommodations.js';
import { toSharedRow, type SharedRecord, type SharedRow } from './find-assignment.js';
import { JOIN_USER } from '../lifecycle/assignment-user-join.js';

/**
 * The partner read's row: what its answer shows, and what its expiry, link and
 * proctoring checks need (find-assignment.ts has the whole row). Left out:
 * the user id, the callback URL and the candidate's own language, which the
 * read never shows, and the tenant, which the statement checks and the caller
 * already knows. The metadata comes as the text the partner sent
 * (`metadata_json`), which the answer splices in as it is: no object is built
 * for it (the jsonb is read only for rows from before that column).
 */
export type PartnerReadRow = SharedRow & {
  /** Present on whole rows (find-assignment.ts); the partner read has metadataJson only. */
  metadata?: Record<string, unknown>;
};

const READ_COLUMNS = `a.id, u.external_user_id, a.test_id, a.test_version_id, a.status, a.due_at, a.metadata_json,
  CASE WHEN a.metadata_json IS NULL THEN a.metadata END AS metadata, a.link_version, a.score, a.accommodations,
  a.created_at, a.started_at, a.submitted_at, a.completed_at, a.cancelled_at, a.livemode, a.locale,
  ps.flags_critical, ps.flags_warning, ps.flags_info, ps.critical_unreviewed, ps.confirmed, ps.dismissed`;

/** A row of READ_COLUMNS: the proctoring session's counts beside the assignment's (null when it has none). */
type ReadRecord = SharedRecord & { [proctoringColumn: string]: unknown };

/**
 * The partner read's statement: the row by primary key (the MATERIALIZED
 * CTE, as FIND_ASSIGNMENT_SQL explains), its tenant checked on that row, and
 * in the same round trip its proctoring counts (null columns when the test is
 * not proctored or the attempt has not begun).
 */
export const READ_ASSIGNMENT_SQL = `WITH a AS MATERIALIZED (SELECT * FROM assignments WHERE id = $1)
  SELECT ${READ_COLUMNS}
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
    SELECT a.institution_id AS tenant, ${READ_COLUMNS}
      FROM assignments a ${JOIN_USER} LEFT JOIN proctoring_sessions ps ON ps.assignment_id = a.id
     WHERE a.id = k.id
     LIMIT 1) r
 WHERE r.tenant = k.institution_id`;

type ReadResult = { row: PartnerReadRow; proctoringCounts: Record<string, unknown> } | null;

type ReadKey = { institutionId: string; assignmentId: string };

/** The partner reads of one event-loop turn, as one statement (turn-batcher.ts); a read alone, or in a transaction, runs READ_ASSIGNMENT_SQL. */
const readBatched = batchedPerPool<ReadKey, ReadResult>({
  async one(db, { institutionId, assignmentId }) {
    const { rows } = await db.query<ReadRecord>({ name: 'read-assignment', text: READ_ASSIGNMENT_SQL, values: [assignmentId, institutionId] });
    const r = rows[0];
    return r ? { row: toSharedRow(institutionId, r), proctoringCounts: r } : null;
  },
  async many(pool, keys) {
    const { rows } = await pool.query<ReadRecord & { n: number }>({
      name: 'read-assignments',
      text: READ_ASSIGNMENTS_SQL,
      values: [JSON.stringify(keys.map((k, n) => ({ n, id: k.assignmentId, institution_id: k.institutionId })))],
    });
    const found: ReadResult[] = keys.map(() => null);
    for (const r of rows) found[r.n] = { row: toSharedRow(keys[r.n]!.institutionId, r), proctoringCounts: r };
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
    /** The partner's `locale`, as sent. */
    locale: string | null;
    livemode: boolean;
    now: Date;
  },
  idempotencyKey?: { key: string; scope: string; fingerprint: string; responseStatus: number; responseBody: string },
): Promise<boolean> {
  const values = [
    a.user.id, a.institutionId, a.user.externalUserId, a.user.email, a.user.name, a.now, a.id, a.testId, a.testVersionId,
    a.callbackUrl, a.dueAt, a.metadataJson, a.accommodations === null ? null : JSON.stringify(a.accommodations), a.livemode, a.locale,
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
const INSERT_ASSIGNMENT_FROM_U = `INSERT INTO assignments (id, institution_id, user_id, test_id, test_version_id, status, callback_url, due_at, metadata, metadata_json, accommodations, created_at, livemode, locale)
     SELECT $7, $2, u.id, $8, $9, 'assigned', $10, $11, $12::text::jsonb, $12::text, $13, $6, $14, $15 FROM u`;

const INSERT_ASSIGNMENT_SQL = `WITH u AS (
       INSERT INTO users (id, institution_id, external_user_id, email, name, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6)
       ${UPSERT_USER}
     )
     ${INSERT_ASSIGNMENT_FROM_U}`;

const INSERT_ASSIGNMENT_WITH_KEY_SQL = `WITH k AS (
       INSERT INTO idempotency_keys (institution_id, livemode, scope, key, fingerprint, response_status, response_body, assignment_id, created_at)
       VALUES ($2, $14, $16, $17, $18, $19, $20, $7, $6)
       ON CONFLICT DO NOTHING
       RETURNING 1
     ), u AS (
       INSERT INTO users (id, institution_id, external_user_id, email, name, created_at, updated_at)
       SELECT $1, $2, $3, $4, $5, $6, $6 FROM k
       ${UPSERT_USER}
     )
     ${INSERT_ASSIGNMENT_FROM_U}`;

