import type { Queryable } from '../../platform/db.js';
import type { Score } from '../lifecycle/score.js';
import type { AssignmentStatus } from '../lifecycle/state-machine.js';
import type { Accommodations } from './accommodations.js';
import { JOIN_USER } from '../lifecycle/assignment-user-join.js';

/**
 * The assignments module's reads of one assignment row, for its own services
 * and for the modules above it (attempts, marking, proctoring, the student app,
 * the portal). The partner read's batched statement and the inserts stay in
 * assignments-repo.ts, private to this module.
 */
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
  /** The partner's `locale` (BCP 47) as sent, or null. */
  locale: string | null;
  /** The language the candidate chose on the intro page (a catalogue's tag), or null. */
  candidateLocale: string | null;
}

export const ASSIGNMENT_COLUMNS = `a.id, a.institution_id, a.user_id, u.external_user_id, a.test_id, a.test_version_id, a.status, a.callback_url,
  a.due_at, a.metadata, a.metadata_json, a.link_version, a.score, a.accommodations, a.created_at, a.started_at, a.submitted_at, a.completed_at, a.cancelled_at, a.livemode,
  a.locale, a.candidate_locale`;

/** A row of ASSIGNMENT_COLUMNS as pg returns it. */
export type AssignmentRecord = {
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
  locale: string | null;
  candidate_locale: string | null;
};

/** What the partner read's narrower row has of the whole one: all but the user id, the callback URL, the candidate's language and the metadata object. */
export type SharedRow = Omit<AssignmentRow, 'userId' | 'callbackUrl' | 'candidateLocale' | 'metadata'>;

/** The metadata as the partner sent it; rows from before metadata_json fall back to the jsonb's own key order. */
export function metadataText(metadataJson: string | null, metadata: Record<string, unknown> | null): string {
  return metadataJson ?? JSON.stringify(metadata ?? {});
}

export function toAssignmentRow(r: AssignmentRecord): AssignmentRow {
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
    metadataJson: metadataText(r.metadata_json, r.metadata),
    linkVersion: r.link_version,
    score: r.score,
    accommodations: r.accommodations,
    createdAt: r.created_at,
    startedAt: r.started_at,
    submittedAt: r.submitted_at,
    completedAt: r.completed_at,
    cancelledAt: r.cancelled_at,
    livemode: r.livemode,
    locale: r.locale ?? null,
    candidateLocale: r.candidate_locale ?? null,
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
  SELECT ${ASSIGNMENT_COLUMNS} FROM a ${JOIN_USER} WHERE a.institution_id = $2`;

/**
 * Tenant-scoped read: another institution's id is indistinguishable from a
 * missing one. With `livemode` (a partner key's mode) an assignment of the
 * other mode is missing too; the mode is compared on the one row the primary
 * key found, so the statement and its plan stay the same. Staff pass nothing
 * and see both modes.
 */
export async function findAssignment(db: Queryable, institutionId: string, assignmentId: string, livemode?: boolean): Promise<AssignmentRow | null> {
  const { rows } = await db.query<AssignmentRecord>({ name: 'find-assignment', text: FIND_ASSIGNMENT_SQL, values: [assignmentId, institutionId] });
  const row = rows[0] ? toAssignmentRow(rows[0]) : null;
  return row && (livemode === undefined || row.livemode === livemode) ? row : null;
}

/** Unscoped read by id, for flows that authenticate another way (signed start link, student session, operator). */
export async function findAssignmentById(db: Queryable, assignmentId: string): Promise<AssignmentRow | null> {
  const { rows } = await db.query<AssignmentRecord>(`SELECT ${ASSIGNMENT_COLUMNS} FROM assignments a ${JOIN_USER} WHERE a.id = $1`, [assignmentId]);
  return rows[0] ? toAssignmentRow(rows[0]) : null;
}

/** Locks the row for a change by the institution (PATCH, cancel, a new start link). */
export async function lockAssignmentRow(db: Queryable, institutionId: string, assignmentId: string): Promise<AssignmentRow | null> {
  const { rows } = await db.query<AssignmentRecord>(
    `SELECT ${ASSIGNMENT_COLUMNS} FROM assignments a ${JOIN_USER} WHERE a.id = $1 AND a.institution_id = $2 FOR UPDATE OF a`,
    [assignmentId, institutionId],
  );
  return rows[0] ? toAssignmentRow(rows[0]) : null;
}

/** The accommodations as committed now; read by "Begin test" after it locked the row, so a concurrent PATCH is never missed. */
export async function accommodationsOf(db: Queryable, institutionId: string, assignmentId: string): Promise<Accommodations | null> {
  const { rows } = await db.query('SELECT accommodations FROM assignments WHERE id = $1 AND institution_id = $2', [assignmentId, institutionId]);
  return rows[0]?.accommodations ?? null;
}

