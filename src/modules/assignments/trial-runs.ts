import type { Queryable } from '../../platform/db.js';
import type { AssignmentStatus } from '../lifecycle/state-machine.js';
import { joinUserOf } from '../lifecycle/assignment-user-join.js';

/** The test-mode user a staff member takes their Try it runs as (one per institution, by this external id). */
export function trialUserId(staffId: string): string {
  return `portal-try:${staffId}`;
}

export interface TrialRun {
  assignmentId: string;
  status: AssignmentStatus;
  createdAt: Date;
  submittedAt: Date | null;
}

/**
 * A staff member's latest Try it run of a test, for the editor to link to
 * its result: trials stay out of the marking queue, the listings and the
 * statistics, so this is how their author finds one again.
 */
export async function latestTrialRun(db: Queryable, input: { institutionId: string; testId: string; staffId: string }): Promise<TrialRun | null> {
  const { rows } = await db.query<{ id: string; status: AssignmentStatus; created_at: Date; submitted_at: Date | null }>(
    `SELECT a.id, a.status, a.created_at, a.submitted_at FROM assignments a ${joinUserOf('a')}
      WHERE a.institution_id = $1 AND a.test_id = $2 AND a.trial AND u.external_user_id = $3
      ORDER BY a.created_at DESC, a.id DESC LIMIT 1`,
    [input.institutionId, input.testId, trialUserId(input.staffId)],
  );
  const r = rows[0];
  return r ? { assignmentId: r.id, status: r.status, createdAt: r.created_at, submittedAt: r.submitted_at } : null;
}
