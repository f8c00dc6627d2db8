import type { Queryable } from '../../platform/db.js';
import { newId } from '../../platform/ids.js';
import { insertAssignmentForUser } from './assignments-repo.js';
import type { AssignmentsContext } from './context.js';

/**
 * A staff member's "Try it" run of a draft (docs/authoring.md): a test-mode
 * assignment (livemode = false) flagged `trial`, of a trial version, for
 * the staff member's own user (`portal-try:<staffId>`), with no due date.
 * A trial assignment writes no event (lifecycle/append-event.ts), so no
 * webhook is sent and GET /events never shows it; it is left out of the
 * assignment listings and exports, and the test-data wipe removes it.
 * Returns its start link.
 */
export const trialUserId = (staffId: string) => `portal-try:${staffId}`;

export async function insertTrialAssignment(
  ctx: Pick<AssignmentsContext, 'signer'>,
  tx: Queryable,
  a: { institutionId: string; testId: string; testVersionId: string; staff: { staffId: string; email: string; name: string | null }; returnUrl: string; now: Date },
): Promise<{ assignmentId: string; startUrl: string }> {
  const assignmentId = newId('asg');
  await insertAssignmentForUser(tx, {
    id: assignmentId,
    institutionId: a.institutionId,
    user: { id: newId('usr'), externalUserId: trialUserId(a.staff.staffId), email: a.staff.email, name: a.staff.name },
    testId: a.testId,
    testVersionId: a.testVersionId,
    callbackUrl: a.returnUrl,
    dueAt: null,
    metadataJson: '{}',
    accommodations: null,
    livemode: false,
    now: a.now,
  });
  await tx.query('UPDATE assignments SET trial = true WHERE id = $1 AND NOT livemode', [assignmentId]);
  return { assignmentId, startUrl: ctx.signer.issue(assignmentId, 1, ctx.signer.expiryFor(a.now, null)).url };
}
