import { withTransaction } from '../../platform/db.js';
import { cancelJob } from '../../platform/jobs.js';
import { closeAttemptOnCancel } from '../attempts/attempt-controls.js';
import { applyTransition } from '../lifecycle/apply-transition.js';
import type { Principal } from '../../platform/principal.js';
import { findAssignmentById } from '../assignments/find-assignment.js';
import { findForChange, invalidState, lockForChange } from './change-lock.js';
import type { AssignmentsContext } from '../assignments/context.js';
import { expireJobKey } from '../assignments/expire-job.js';
import { assignmentView, type AssignmentView } from '../assignments/get-assignment.js';

/**
 * POST /assignments/{id}/cancel: `assigned` or `started` → `cancelled`
 * through the state machine, with `assignment.cancelled`, in one transaction
 * that also closes a running attempt (no more saves, no auto-submit; the
 * saved answers stay, readable by the institution) and drops the expiry job.
 * The start link stops working since the status is no longer startable.
 *
 * Cancelling a cancelled assignment answers the same assignment and emits
 * nothing. Racing a submission, the attempt lock decides: whichever runs
 * first wins, and the other finds the attempt closed (the submission
 * changes nothing) or the assignment submitted (409 invalid_state).
 */
export async function cancelAssignment(ctx: AssignmentsContext, scope: Principal, assignmentId: string): Promise<AssignmentView> {
  const now = ctx.clock.now();
  const found = await findForChange(ctx.pool, scope, assignmentId, now);
  await withTransaction(ctx.pool, async (tx) => {
    const { row, attempt } = await lockForChange(tx, found);
    if (row.status === 'cancelled') return;
    const outcome = await applyTransition(tx, row.id, [{ type: 'cancel' }], now);
    if (!outcome.ok) throw invalidState(row.status, 'cancelled');
    if (attempt) await closeAttemptOnCancel(tx, attempt, now);
    await cancelJob(tx, expireJobKey(row.id));
  });
  return assignmentView(ctx.pool, ctx.signer, (await findAssignmentById(ctx.pool, found.id))!, now);
}
