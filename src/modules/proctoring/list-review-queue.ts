import type { Queryable } from '../../platform/db.js';
import { SUBMITTED_STATUSES } from '../lifecycle/state-machine.js';
import { JOIN_USER } from '../lifecycle/assignment-user-join.js';

/**
 * Submitted proctored attempts of an institution whose critical flags still
 * wait for a reviewer, oldest submission first: the portal's proctoring
 * review queue. Only attempts still holding their record (not purged).
 * Test-mode attempts are listed too, with `livemode: false`: the portal
 * labels them and counts them apart.
 */
export interface ReviewQueueItem {
  assignmentId: string;
  externalUserId: string;
  testId: string;
  submittedAt: Date | null;
  criticalUnreviewed: number;
  critical: number;
  livemode: boolean;
}

// Literals in the statement's text, as before: the planner sees constants, not a parameter.
const SUBMITTED_SQL = SUBMITTED_STATUSES.map((s) => `'${s}'`).join(', ');

export async function listProctoringReviewQueue(db: Queryable, institutionId: string, limit = 100): Promise<ReviewQueueItem[]> {
  const { rows } = await db.query(
    `SELECT s.assignment_id, u.external_user_id, a.test_id, a.submitted_at, s.critical_unreviewed, s.flags_critical, a.livemode
       FROM proctoring_sessions s
       JOIN assignments a ON a.id = s.assignment_id AND a.institution_id = s.institution_id
       ${JOIN_USER}
      WHERE s.institution_id = $1 AND s.critical_unreviewed > 0 AND s.purged_at IS NULL
        AND a.status IN (${SUBMITTED_SQL})
      ORDER BY a.submitted_at, a.id
      LIMIT $2`,
    [institutionId, limit],
  );
  return rows.map((r) => ({
    assignmentId: r.assignment_id,
    externalUserId: r.external_user_id,
    testId: r.test_id,
    submittedAt: r.submitted_at,
    criticalUnreviewed: r.critical_unreviewed,
    critical: r.flags_critical,
    livemode: r.livemode,
  }));
}
