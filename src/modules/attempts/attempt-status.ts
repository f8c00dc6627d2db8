import type { AppContext } from '../../platform/context.js';
import type { Queryable } from '../../platform/db.js';
import { notFound } from '../../platform/errors.js';
import type { AssignmentStatus } from '../lifecycle/state-machine.js';
import type { StudentSession } from '../assignments/student-sessions.js';

export interface AttemptStatus {
  status: AssignmentStatus;
  /** The attempt's deadline while it runs; null otherwise. */
  deadline: Date | null;
  serverNow: Date;
}

/**
 * What an open test page learns of changes made elsewhere: extra time
 * granted, the assignment cancelled, the attempt submitted from another tab
 * or by the deadline. The page's event stream (student/status-streams.ts)
 * pushes it on every change; this read is the stream's first message and the
 * page's fallback poll when the stream cannot be held open. Its cost is one
 * indexed read of the assignment and its attempt (a prepared statement)
 * after the session lookup every student request makes. It reads only: the
 * lazy checks run when the page itself is loaded.
 */
export async function getAttemptStatus(ctx: AppContext, session: StudentSession, assignmentId: string): Promise<AttemptStatus> {
  const now = ctx.clock.now();
  const { rows } = await ctx.pool.query<{ status: AssignmentStatus; deadline_at: Date | null }>({
    name: 'student-attempt-status',
    text: `SELECT a.status, t.deadline_at FROM assignments a LEFT JOIN attempts t ON t.assignment_id = a.id
            WHERE a.id = $1 AND a.institution_id = $2 AND a.user_id = $3`,
    values: [assignmentId, session.institutionId, session.userId],
  });
  const r = rows[0];
  if (!r) throw notFound('assignment');
  return { status: r.status, deadline: r.status === 'started' ? r.deadline_at : null, serverNow: now };
}

/**
 * The statuses of several assignments in one statement, for the event
 * streams, which were authorised when they opened: by id alone. Unknown ids
 * are absent from the map.
 */
export async function readAttemptStatuses(db: Queryable, assignmentIds: string[], now: Date): Promise<Map<string, AttemptStatus>> {
  const { rows } = await db.query<{ id: string; status: AssignmentStatus; deadline_at: Date | null }>({
    name: 'student-attempt-statuses',
    text: 'SELECT a.id, a.status, t.deadline_at FROM assignments a LEFT JOIN attempts t ON t.assignment_id = a.id WHERE a.id = ANY($1)',
    values: [assignmentIds],
  });
  return new Map(rows.map((r) => [r.id, { status: r.status, deadline: r.status === 'started' ? r.deadline_at : null, serverNow: now }]));
}
