import type { Pool, Tx } from '../../platform/db.js';
import { AppError, notFound } from '../../platform/errors.js';
import { tenantInstitution, tenantOf, type Principal } from '../../platform/principal.js';
import { lockAttempt, type Attempt } from '../attempts/find-attempt.js';
import type { AssignmentStatus } from '../lifecycle/state-machine.js';
import { findAssignment, findAssignmentById, lockAssignmentRow, type AssignmentRow } from '../assignments/find-assignment.js';
import { expireIfDue } from '../assignments/get-assignment.js';

/**
 * The assignment a control acts on, before any lock: 404 unless the principal
 * may see it. A partner reaches its own institution's assignments of its key's
 * mode only (anything else is 404 like a missing id); the institution's staff
 * the same in both modes; an operator any institution's. An `assigned`
 * assignment past dueAt is expired first (its own transaction, as every read
 * does), so the control then finds it `expired`.
 */
export async function findForChange(pool: Pool, principal: Principal, assignmentId: string, now: Date): Promise<AssignmentRow> {
  const institutionId = tenantInstitution(tenantOf(principal));
  const livemode = principal.kind === 'partner' ? principal.livemode : undefined;
  const find = () => (institutionId !== null ? findAssignment(pool, institutionId, assignmentId, livemode) : findAssignmentById(pool, assignmentId));
  const row = await find();
  if (!row) throw notFound('assignment');
  if (await expireIfDue(pool, row, now)) return (await find())!;
  return row;
}

/**
 * Locks the attempt (if the student has begun), then the assignment row:
 * the order submission and saves use, so a control and a submission run one
 * after the other. If the student began between the two reads, the attempt
 * is locked after the row; that one ordering can deadlock with a submission
 * of the brand-new attempt, which PostgreSQL detects and withTransaction retries.
 */
export async function lockForChange(tx: Tx, found: AssignmentRow): Promise<{ row: AssignmentRow; attempt: Attempt | null }> {
  const lockTheAttempt = () => lockAttempt(tx, found.id, 'update', { institutionId: found.institutionId });
  let attempt = await lockTheAttempt();
  const row = await lockAssignmentRow(tx, found.institutionId, found.id);
  if (!row) throw notFound('assignment');
  if (!attempt && row.status !== 'assigned') attempt = await lockTheAttempt();
  return { row, attempt };
}

/** 409 invalid_state: the action is not allowed in the assignment's status. */
export function invalidState(status: AssignmentStatus, action: string): AppError {
  return new AppError('invalid_state', `This assignment is ${status}: it can no longer be ${action}.`);
}
