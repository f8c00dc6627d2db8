import type { Pool, Tx } from '../../platform/db.js';
import { AppError, notFound } from '../../platform/errors.js';
import { lockAttempt, type Attempt } from '../attempts/attempts-service.js';
import type { AssignmentStatus } from '../lifecycle/state-machine.js';
import { findAssignment, findAssignmentById, lockAssignmentRow, type AssignmentRow } from './assignments-repo.js';
import { expireIfDue } from './get-assignment.js';

/**
 * Who acts on an assignment through the controls: a partner (its own
 * institution's assignments of its key's mode only; anything else is 404 like
 * a missing id), the institution's staff (the same without `livemode`: both
 * modes) or an operator (any institution).
 */
export type ControlScope = { kind: 'partner'; institutionId: string; livemode?: boolean } | { kind: 'operator' };

/**
 * The assignment a control acts on, before any lock: 404 unless the scope may
 * see it. An `assigned` assignment past dueAt is expired first (its own
 * transaction, as every read does), so the control then finds it `expired`.
 */
export async function findForChange(pool: Pool, scope: ControlScope, assignmentId: string, now: Date): Promise<AssignmentRow> {
  const find = () => (scope.kind === 'partner' ? findAssignment(pool, scope.institutionId, assignmentId, scope.livemode) : findAssignmentById(pool, assignmentId));
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
  const lockTheAttempt = () => lockAttempt(tx, found.id, 'update', found.institutionId);
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
