import type { Queryable } from '../../platform/db.js';
import { batchedPerPool } from '../../platform/turn-batcher.js';
import type { Accommodations } from './accommodations.js';
import { metadataText, type SharedRow } from './find-assignment.js';
import type { SessionCountsRecord } from './proctoring-summary.js';
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

/**
 * The partner read's columns, in the order its statements select them. Its
 * rows come as arrays (pg's rowMode 'array') and are read by these positions:
 * each row is then one array and the row below, where an object of named
 * columns was built and copied (a third of the client's work for the read).
 */
const READ = [
  'a.id', 'u.external_user_id', 'a.test_id', 'a.test_version_id', 'a.status', 'a.due_at', 'a.metadata_json',
  'CASE WHEN a.metadata_json IS NULL THEN a.metadata END', 'a.link_version', 'a.score', 'a.accommodations',
  'a.created_at', 'a.started_at', 'a.submitted_at', 'a.completed_at', 'a.cancelled_at', 'a.livemode', 'a.locale',
  'ps.flags_critical', 'ps.flags_warning', 'ps.flags_info', 'ps.critical_unreviewed', 'ps.confirmed', 'ps.dismissed',
] as const;
const at = (column: (typeof READ)[number]) => READ.indexOf(column);
const C = {
  id: at('a.id'), externalUserId: at('u.external_user_id'), testId: at('a.test_id'), testVersionId: at('a.test_version_id'),
  status: at('a.status'), dueAt: at('a.due_at'), metadataJson: at('a.metadata_json'), metadata: at('CASE WHEN a.metadata_json IS NULL THEN a.metadata END'),
  linkVersion: at('a.link_version'), score: at('a.score'), accommodations: at('a.accommodations'), createdAt: at('a.created_at'),
  startedAt: at('a.started_at'), submittedAt: at('a.submitted_at'), completedAt: at('a.completed_at'), cancelledAt: at('a.cancelled_at'),
  livemode: at('a.livemode'), locale: at('a.locale'), flagsCritical: at('ps.flags_critical'), flagsWarning: at('ps.flags_warning'),
  flagsInfo: at('ps.flags_info'), criticalUnreviewed: at('ps.critical_unreviewed'), confirmed: at('ps.confirmed'), dismissed: at('ps.dismissed'),
};
const READ_COLUMNS = READ.join(', ');

/** A row of the read statements as pg returns it in array mode: READ's values from `offset` on. */
type ReadArray = unknown[];

/** The row and the proctoring session's counts (null columns when it has none) of a read's array, READ starting at `offset`. */
function fromReadArray(institutionId: string, r: ReadArray, offset: number): NonNullable<ReadResult> {
  const v = (i: number) => r[offset + i] as never;
  return {
    row: {
      id: v(C.id),
      institutionId,
      externalUserId: v(C.externalUserId),
      testId: v(C.testId),
      testVersionId: v(C.testVersionId),
      status: v(C.status),
      dueAt: v(C.dueAt),
      metadataJson: metadataText(v(C.metadataJson), v(C.metadata)),
      linkVersion: v(C.linkVersion),
      score: v(C.score),
      accommodations: v(C.accommodations),
      createdAt: v(C.createdAt),
      startedAt: v(C.startedAt),
      submittedAt: v(C.submittedAt),
      completedAt: v(C.completedAt),
      cancelledAt: v(C.cancelledAt),
      livemode: v(C.livemode),
      locale: v(C.locale),
    },
    proctoringCounts: {
      flags_critical: v(C.flagsCritical),
      flags_warning: v(C.flagsWarning),
      flags_info: v(C.flagsInfo),
      critical_unreviewed: v(C.criticalUnreviewed),
      confirmed: v(C.confirmed),
      dismissed: v(C.dismissed),
    },
  };
}

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
 * run instead of keeping its generic plan. A row is `n`, the tenant, then READ.
 */
export const READ_ASSIGNMENTS_SQL = `SELECT k.n, r.*
  FROM jsonb_to_recordset($1::jsonb) AS k (n int, id text, institution_id text)
  CROSS JOIN LATERAL (
    SELECT a.institution_id AS tenant, ${READ_COLUMNS}
      FROM assignments a ${JOIN_USER} LEFT JOIN proctoring_sessions ps ON ps.assignment_id = a.id
     WHERE a.id = k.id
     LIMIT 1) r
 WHERE r.tenant = k.institution_id`;

type ReadResult = { row: PartnerReadRow; proctoringCounts: SessionCountsRecord } | null;

/** A read: the tenant, the id, and the key's mode when a partner reads (an assignment of the other mode is missing). */
type ReadKey = { institutionId: string; assignmentId: string; livemode: boolean | undefined };

/** A read's row, or null when the row is of the other mode than the key's. */
function ofMode(key: ReadKey, r: ReadArray, offset: number): ReadResult {
  const found = fromReadArray(key.institutionId, r, offset);
  return key.livemode === undefined || found.row.livemode === key.livemode ? found : null;
}

/** The partner reads of one event-loop turn, as one statement (turn-batcher.ts); a read alone, or in a transaction, runs READ_ASSIGNMENT_SQL. */
const readBatched = batchedPerPool<ReadKey, ReadResult>({
  async one(db, key) {
    const { rows } = await db.query<ReadArray>({ name: 'read-assignment', text: READ_ASSIGNMENT_SQL, values: [key.assignmentId, key.institutionId], rowMode: 'array' });
    return rows[0] ? ofMode(key, rows[0], 0) : null;
  },
  async many(pool, keys) {
    const { rows } = await pool.query<ReadArray>({
      name: 'read-assignments',
      text: READ_ASSIGNMENTS_SQL,
      values: [JSON.stringify(keys.map((k, n) => ({ n, id: k.assignmentId, institution_id: k.institutionId })))],
      rowMode: 'array',
    });
    const found: ReadResult[] = keys.map(() => null);
    for (const r of rows) {
      const n = r[0] as number;
      found[n] = ofMode(keys[n]!, r, 2);
    }
    return found;
  },
});

/**
 * findAssignment for the partner read: the row and the raw proctoring counts
 * (see proctoring-summary.ts). On a pool, the reads that arrive in one turn
 * of the event loop share one statement; in a transaction it reads alone.
 * With `livemode` (a partner key's mode), an assignment of the other mode is
 * missing, as in findAssignment.
 */
export function readAssignment(db: Queryable, institutionId: string, assignmentId: string, livemode?: boolean): Promise<ReadResult> {
  return readBatched(db, { institutionId, assignmentId, livemode });
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

