import type { Queryable } from '../../platform/db.js';
import type { AssignmentStatus } from '../lifecycle/state-machine.js';
import type { Score } from '../lifecycle/score.js';
import { JOIN_USER } from '../lifecycle/assignment-user-join.js';

/**
 * The staff listing of an institution's assignments (the portal's
 * Assignments page): newest first, filtered by status, test, creation date
 * range and an externalUserId prefix, paged by keyset on (created_at, id) so
 * page 2,000 costs what page 1 does. Each filter has an index that starts
 * with institution_id (migrations/0007_portal.sql). The mode filter is a
 * literal predicate, not a parameter, so the test-mode listing can use the
 * partial index of test-mode rows (migrations/0015_test_mode.sql); live rows
 * are nearly all rows, so the live listing keeps its index.
 */
export interface AssignmentListFilter {
  institutionId: string;
  status?: AssignmentStatus | undefined;
  testId?: string | undefined;
  /** Matches external user ids that start with this text. */
  externalUserId?: string | undefined;
  createdFrom?: Date | undefined;
  /** Exclusive. */
  createdTo?: Date | undefined;
  /** true: live assignments only; false: test-mode ones only; absent: both. */
  livemode?: boolean | undefined;
}

export interface AssignmentSummary {
  assignmentId: string;
  externalUserId: string;
  testId: string;
  status: AssignmentStatus;
  score: Score | null;
  createdAt: Date;
  submittedAt: Date | null;
  completedAt: Date | null;
  dueAt: Date | null;
  /** False for a test-mode assignment: the portal labels it. */
  livemode: boolean;
}

export interface AssignmentPage {
  data: AssignmentSummary[];
  /** Cursor of the page after this one (older), null on the last page. */
  older: string | null;
  /** Cursor of the page before this one (newer), null on the first page. */
  newer: string | null;
}

/**
 * A cursor is `2024-05-01T10:00:00.123456Z~asg_…`: the row's creation time
 * with microseconds (a Date would round to milliseconds and skip or repeat
 * rows at a page boundary) and its id. Anything else is no cursor.
 */
export function decodeCursor(raw: string | undefined): { micros: string; id: string } | null {
  if (!raw) return null;
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?Z)~([A-Za-z0-9_]{1,64})$/.exec(raw);
  if (!m || !Number.isFinite(Date.parse(m[1]!))) return null;
  return { micros: m[1]!, id: m[2]! };
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * The listing's filters as SQL conditions on `assignments a` ($1 the
 * institution), with their parameters; the page and the results export
 * (results/results-csv.ts) both start from them. Callers may push more.
 */
export function assignmentFilterSql(filter: AssignmentListFilter): { where: string[]; values: unknown[] } {
  const values: unknown[] = [filter.institutionId];
  // A staff member's "Try it" run (docs/authoring.md) is no partner's assignment: never listed or exported.
  const where = ['a.institution_id = $1', 'NOT a.trial'];
  const add = (sql: (n: string) => string, value: unknown) => {
    values.push(value);
    where.push(sql(`$${values.length}`));
  };
  if (filter.livemode !== undefined) where.push(filter.livemode ? 'a.livemode' : 'NOT a.livemode');
  if (filter.status) add((n) => `a.status = ${n}`, filter.status);
  if (filter.testId) add((n) => `a.test_id = ${n}`, filter.testId);
  if (filter.createdFrom) add((n) => `a.created_at >= ${n}`, filter.createdFrom);
  if (filter.createdTo) add((n) => `a.created_at < ${n}`, filter.createdTo);
  if (filter.externalUserId) {
    // The users' prefix index finds the few matching users; their assignments come by user_id.
    add((n) => `a.user_id IN (SELECT id FROM users WHERE institution_id = $1 AND external_user_id LIKE ${n})`, `${escapeLike(filter.externalUserId)}%`);
  }
  return { where, values };
}

/**
 * One page of `limit` rows after (`direction: 'older'`) or before
 * (`'newer'`) the cursor. The timestamp travels as text with microseconds
 * (`created_at_text`), since a JavaScript Date would round it to milliseconds.
 */
export async function listAssignments(
  db: Queryable,
  filter: AssignmentListFilter,
  page: { limit: number; cursor?: string | undefined; direction?: 'older' | 'newer' },
): Promise<AssignmentPage> {
  const cursor = decodeCursor(page.cursor);
  const newer = cursor !== null && page.direction === 'newer';
  const { where, values: params } = assignmentFilterSql(filter);
  if (cursor) {
    params.push(cursor.micros, cursor.id);
    const op = newer ? '>' : '<';
    where.push(`(a.created_at, a.id) ${op} ($${params.length - 1}::timestamptz, $${params.length}::text)`);
  }
  params.push(page.limit + 1);
  const order = newer ? 'ASC' : 'DESC';
  const { rows } = await db.query(
    `SELECT a.id, u.external_user_id, a.test_id, a.status, a.score, a.created_at, a.submitted_at, a.completed_at, a.due_at, a.livemode,
            to_char(a.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at_text
       FROM assignments a ${JOIN_USER}
      WHERE ${where.join(' AND ')}
      ORDER BY a.created_at ${order}, a.id ${order}
      LIMIT $${params.length}`,
    params,
  );
  const more = rows.length > page.limit;
  const slice = rows.slice(0, page.limit);
  if (newer) slice.reverse();
  const data: AssignmentSummary[] = slice.map((r) => ({
    assignmentId: r.id,
    externalUserId: r.external_user_id,
    testId: r.test_id,
    status: r.status,
    score: r.score,
    createdAt: r.created_at,
    submittedAt: r.submitted_at,
    completedAt: r.completed_at,
    dueAt: r.due_at,
    livemode: r.livemode,
  }));
  const cursorOf = (r: { created_at_text: string; id: string } | undefined) => (r ? `${r.created_at_text}~${r.id}` : null);
  return {
    data,
    // Going older: more rows beyond means an older page, and having come from a cursor means a newer one.
    // Going newer: the mirror image.
    older: (newer ? cursor !== null : more) ? cursorOf(slice[slice.length - 1]) : null,
    newer: (newer ? more : cursor !== null) ? cursorOf(slice[0]) : null,
  };
}
