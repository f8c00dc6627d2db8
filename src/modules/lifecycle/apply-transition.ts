import type { Tx } from '../../platform/db.js';
import { appendEvent, type StoredEvent } from './append-event.js';
import { assignmentEvent, type EventAssignment } from './event-envelope.js';
import { transition, type AssignmentStatus, type LifecycleAction, type TransitionResult } from './state-machine.js';
import { JOIN_USER } from './assignment-user-join.js';
import { enqueueResultsRollUp } from './results-rollup-job.js';
import { notifyStatusChange } from './status-changes.js';

/**
 * The transition writer: the only code that writes `assignments.status`.
 * Locks the row, runs the pure state machine for each action in order, then
 * writes the new status, its timestamps and the events in the caller's
 * transaction. Event data carry the status as it stands after all actions.
 * Every applied transition notifies the open student pages (status-changes.ts),
 * in the same transaction.
 */
export interface LockedAssignment extends EventAssignment {
  status: AssignmentStatus;
  dueAt: Date | null;
}

export type ApplyOutcome =
  | { ok: true; status: AssignmentStatus; events: StoredEvent[] }
  | { ok: false; status: AssignmentStatus; reason: string }
  | { ok: false; status: null; reason: 'not_found' };

type LockedRecord = {
  id: string;
  institution_id: string;
  test_id: string;
  status: AssignmentStatus;
  due_at: Date | null;
  metadata: Record<string, unknown> | null;
  metadata_json: string | null;
  external_user_id: string;
};

export async function lockAssignment(tx: Tx, assignmentId: string): Promise<LockedAssignment | null> {
  const { rows } = await tx.query<LockedRecord>(
    `SELECT a.id, a.institution_id, a.test_id, a.status, a.due_at, a.metadata, a.metadata_json, u.external_user_id
       FROM assignments a ${JOIN_USER}
      WHERE a.id = $1 FOR UPDATE OF a`,
    [assignmentId],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    id: r.id,
    institutionId: r.institution_id,
    externalUserId: r.external_user_id,
    testId: r.test_id,
    status: r.status,
    dueAt: r.due_at,
    metadata: r.metadata,
    metadataJson: r.metadata_json ?? JSON.stringify(r.metadata ?? {}),
  };
}

export async function applyTransition(
  tx: Tx,
  assignmentId: string,
  actions: LifecycleAction[],
  now: Date,
): Promise<ApplyOutcome> {
  const a = await lockAssignment(tx, assignmentId);
  if (!a) return { ok: false, status: null, reason: 'not_found' };

  let state = { status: a.status, dueAt: a.dueAt };
  const set: Record<string, unknown> = {};
  const pending: TransitionResult['events'] = [];
  for (const action of actions) {
    const outcome = transition(state, action, now);
    if (!outcome.ok) return { ok: false, status: a.status, reason: outcome.reason };
    Object.assign(set, outcome.result.set);
    pending.push(...outcome.result.events);
    state = { ...state, status: outcome.result.status };
  }

  await tx.query(
    `UPDATE assignments SET status = $2,
        started_at   = COALESCE($3, started_at),
        submitted_at = COALESCE($4, submitted_at),
        completed_at = COALESCE($5, completed_at),
        expired_at   = COALESCE($6, expired_at),
        score        = CASE WHEN $7 THEN $8::jsonb ELSE score END,
        cancelled_at = COALESCE($9, cancelled_at)
      WHERE id = $1`,
    [
      a.id,
      state.status,
      set.startedAt ?? null,
      set.submittedAt ?? null,
      set.completedAt ?? null,
      set.expiredAt ?? null,
      'score' in set,
      set.score === undefined ? null : JSON.stringify(set.score),
      set.cancelledAt ?? null,
    ],
  );

  await notifyStatusChange(tx, a.id);

  // A final score of a completed assignment joins the item statistics (results/), in this transaction's job.
  const score = set.score as { gradingStatus?: string } | null | undefined;
  if (state.status === 'completed' && score?.gradingStatus === 'final') await enqueueResultsRollUp(tx, a.id);

  const events: StoredEvent[] = [];
  for (const e of pending) {
    events.push(
      await appendEvent(tx, assignmentEvent(a, { type: e.type, status: state.status, extra: e.extra, createdAt: now })),
    );
  }
  return { ok: true, status: state.status, events };
}
