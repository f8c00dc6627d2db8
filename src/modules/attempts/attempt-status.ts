import type { AppContext } from '../../platform/context.js';
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
 * What an open test page polls (student.js, every 10 s while the page is
 * visible) to learn of changes made elsewhere: extra time granted, the
 * assignment cancelled, the attempt submitted from another tab or by the
 * deadline. Polling, rather than a push channel, keeps the API process
 * stateless; its cost is one indexed read of the assignment and its attempt
 * (a prepared statement) after the session lookup every student request
 * makes. It reads only: the lazy checks run when the page itself is loaded.
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
