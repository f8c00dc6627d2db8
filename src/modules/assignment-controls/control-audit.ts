import { joinTransaction, withTransaction } from '../../platform/db.js';
import { recordAudit, type AuditContext } from '../staff/audit.js';
import { findAssignmentById } from '../assignments/find-assignment.js';
import type { AssignmentsContext } from '../assignments/context.js';

/**
 * An assignment control (change, cancel, new start link) made by the
 * operator API or a portal admin, with its audit entry in the same
 * transaction: the control's own transactions join this one, so the change
 * and the entry commit together or not at all. Without an AuditContext (the
 * partner's own API) the control runs as it is. An unknown assignment throws
 * the control's own 404 and records nothing. Details never hold the start
 * link (it signs the student in).
 */
export type ControlAction = 'assignment.updated' | 'assignment.cancelled' | 'assignment.start_link_reissued';

export async function withControlAudit<T>(
  ctx: AssignmentsContext,
  audit: AuditContext | undefined,
  entry: { action: ControlAction; assignmentId: string; details?: (result: T) => Record<string, unknown> | null },
  change: (ctx: AssignmentsContext) => Promise<T>,
): Promise<T> {
  if (!audit) return change(ctx);
  return withTransaction(ctx.pool, async (tx) => {
    const result = await change({ ...ctx, pool: joinTransaction(tx) });
    const row = await findAssignmentById(tx, entry.assignmentId);
    const details = entry.details ? entry.details(result) : {};
    // null: nothing changed (an idempotent replay), so there is nothing to record.
    if (row && details !== null) {
      await recordAudit(tx, { action: entry.action, objectType: 'assignment', objectId: entry.assignmentId, institutionId: row.institutionId, details, actor: audit.actor, ip: audit.ip });
    }
    return result;
  });
}
