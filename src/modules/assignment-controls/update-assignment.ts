import { withTransaction } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import { cancelJob, enqueueJob } from '../../platform/jobs.js';
import { applyExtraTime } from '../attempts/attempt-controls.js';
import { applyTransition } from '../lifecycle/apply-transition.js';
import { transition, type AssignmentChanges } from '../lifecycle/state-machine.js';
import type { Principal } from '../../platform/principal.js';
import { checkRelaxationsAllowed, normaliseAccommodations, sameAccommodations, type Accommodations } from '../assignments/accommodations.js';
import { findAssignmentById } from '../assignments/find-assignment.js';
import { writeAssignmentFields } from '../assignments/assignment-fields.js';
import { findForChange, invalidState, lockForChange } from './change-lock.js';
import type { AssignmentsContext } from '../assignments/context.js';
import type { UpdateAssignmentBody } from './control-schemas.js';
import { expireAssignmentJob, expireJobKey } from '../assignments/expire-job.js';
import { assignmentView, type AssignmentView } from '../assignments/get-assignment.js';
import { claimKey, fingerprint, storeResponse } from '../assignments/idempotency.js';

export interface UpdateResult {
  /** The exact bytes of the 200 response: stored for replay, sent as they are. */
  body: string;
  replayed: boolean;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * PATCH /assignments/{id}: a new dueAt and/or new accommodations, while the
 * assignment is `assigned` or `started` (409 invalid_state otherwise).
 *
 * In one transaction: the Idempotency-Key claim (scoped to this route; the
 * fingerprint covers the assignment id and the body), the attempt and
 * assignment locks, the fields, the expiry job moved to the new dueAt, and for
 * an attempt in progress its deadline and auto-submit job, then
 * `assignment.updated` through the state machine with what changed
 * (`data.changes`). A request that changes nothing emits nothing.
 */
export async function updateAssignment(
  ctx: AssignmentsContext,
  input: {
    scope: Principal;
    assignmentId: string;
    body: UpdateAssignmentBody;
    idempotencyKey: string | undefined;
    serialize: (v: AssignmentView) => string;
  },
): Promise<UpdateResult> {
  const { body } = input;
  const now = ctx.clock.now();
  if (body.dueAt === undefined && body.accommodations === undefined) {
    throw new AppError('invalid_request', 'Give dueAt, accommodations or both.', [{ field: 'body', message: 'must contain dueAt or accommodations' }]);
  }
  const dueAt = body.dueAt === undefined ? undefined : body.dueAt === null ? null : new Date(body.dueAt);
  const accommodations = body.accommodations === undefined ? undefined : normaliseAccommodations(body.accommodations);
  if (dueAt && dueAt.getTime() <= now.getTime()) {
    throw new AppError('due_at_in_past', 'dueAt: must be in the future.', [{ field: 'dueAt', message: 'must be in the future' }]);
  }

  const found = await findForChange(ctx.pool, input.scope, input.assignmentId, now);
  // The operator's keys live apart from the partner's, even on the same institution.
  const scope = `${input.scope.kind === 'operator' ? 'operator ' : ''}PATCH /assignments/{assignmentId}`;
  const key = input.idempotencyKey;

  return withTransaction(ctx.pool, async (tx) => {
    if (key) {
      const claim = await claimKey(tx, found.institutionId, key, fingerprint({ assignmentId: found.id, body }), now, scope, found.livemode);
      if (claim.kind === 'replay') return { body: claim.body, replayed: true };
    }
    const { row, attempt } = await lockForChange(tx, found);
    const guard = transition({ status: row.status, dueAt: row.dueAt }, { type: 'update', changes: {} }, now);
    if (!guard.ok) throw invalidState(row.status, 'changed');
    if (accommodations !== undefined) await checkRelaxationsAllowed(tx, row.institutionId, accommodations);

    const changes: AssignmentChanges = {};
    if (dueAt !== undefined && iso(dueAt) !== iso(row.dueAt)) changes.dueAt = { from: iso(row.dueAt), to: iso(dueAt) };
    if (accommodations !== undefined && !sameAccommodations(accommodations, row.accommodations)) {
      changes.accommodations = { from: row.accommodations, to: accommodations };
      if (attempt) {
        const moved = await applyExtraTime(tx, attempt, accommodations, now);
        if (moved) changes.deadlineAt = { from: moved.from.toISOString(), to: moved.to.toISOString() };
      }
    }
    if (changes.dueAt || changes.accommodations) {
      const fields: { dueAt?: Date | null; accommodations?: Accommodations | null } = {};
      if (changes.dueAt && dueAt !== undefined) fields.dueAt = dueAt;
      if (changes.accommodations && accommodations !== undefined) fields.accommodations = accommodations;
      await writeAssignmentFields(tx, row.institutionId, row.id, fields);
      if (changes.dueAt) {
        if (dueAt) await enqueueJob(tx, expireAssignmentJob, { assignmentId: row.id }, { runAt: dueAt, uniqueKey: expireJobKey(row.id) });
        else await cancelJob(tx, expireJobKey(row.id));
      }
      const applied = await applyTransition(tx, row.id, [{ type: 'update', changes }], now);
      // Checked above under the same lock; a refusal here is a broken invariant.
      if (!applied.ok) throw new Error(`update ${row.id}: ${applied.reason}`);
    }

    const serialized = input.serialize(await assignmentView(tx, ctx.signer, (await findAssignmentById(tx, row.id))!, now));
    if (key) await storeResponse(tx, row.institutionId, key, { status: 200, body: serialized, assignmentId: row.id }, scope, row.livemode);
    return { body: serialized, replayed: false };
  });
}

