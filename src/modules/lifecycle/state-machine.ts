import type { Score } from './score.js';
import type { ResultVisibility } from '../catalog/test-settings.js';
import type { AssignmentEventType } from './event-types.js';

/**
 * The assignment state machine of spec section 3, pure: no I/O, no clock of
 * its own. Every status change in the code base goes through `transition`,
 * and the transition writer stores what it returns in one transaction.
 *
 * Glossary
 * - assigned: created, not begun.           - started: the attempt is running.
 * - submitted: handed in, awaiting marking.  - marking: a reviewer marks (after_review tests).
 * - completed: result available.            - expired: not begun before dueAt.
 * - cancelled: withdrawn by the institution while assigned or started (added status).
 */
export const ASSIGNMENT_STATUSES = ['assigned', 'started', 'submitted', 'marking', 'completed', 'expired', 'cancelled'] as const;
/**
 * Every status, in lifecycle order: the one list. The API's schema
 * (AssignmentStatusSchema), the portal's filter and cards, and this machine
 * derive from it; the database's CHECK on assignments.status is tested to
 * equal it (test/lifecycle/assignment-statuses.test.ts).
 */
export type AssignmentStatus = (typeof ASSIGNMENT_STATUSES)[number];

export function isAssignmentStatus(value: unknown): value is AssignmentStatus {
  return (ASSIGNMENT_STATUSES as readonly unknown[]).includes(value);
}

/** Where the institution may still change an assignment (PATCH, cancel, a new start link); elsewhere 409 invalid_state. */
export const CHANGEABLE_STATUSES: ReadonlySet<AssignmentStatus> = new Set(['assigned', 'started']);

/**
 * After submission: handed in, whether or not marked. The student sees the
 * completion page, and proctoring flags can be reviewed.
 */
export const SUBMITTED_STATUSES = ['submitted', 'marking', 'completed'] as const satisfies readonly AssignmentStatus[];
export type SubmittedStatus = (typeof SUBMITTED_STATUSES)[number];

export function isSubmittedStatus(status: AssignmentStatus): status is SubmittedStatus {
  return (SUBMITTED_STATUSES as readonly AssignmentStatus[]).includes(status);
}

/** Where an attempt exists: begun, then submitted (a cancelled one may have an attempt, closed with it, but takes no more events). */
export function hasAttempt(status: AssignmentStatus): boolean {
  return status === 'started' || isSubmittedStatus(status);
}

/** What an `assignment.updated` event says changed: each field present only when it changed. */
export interface AssignmentChanges {
  dueAt?: { from: string | null; to: string | null };
  accommodations?: { from: unknown; to: unknown };
  deadlineAt?: { from: string; to: string };
}

export type LifecycleAction =
  | { type: 'start' }
  /** The student (or the deadline) submits; `score` is the auto-marked score, null when nothing is auto-markable. */
  | { type: 'submit'; score: Score | null }
  /** After submission: `immediate` tests complete at once, `after_review` tests go to marking. */
  | { type: 'settle'; resultVisibility: ResultVisibility; score: Score | null }
  /** A reviewer finishes marking. */
  | { type: 'complete_marking'; score: Score }
  | { type: 'expire' }
  /** The institution changed dueAt or accommodations; the status stays. */
  | { type: 'update'; changes: AssignmentChanges }
  /** The institution withdraws the assignment. Cancelling a cancelled one changes nothing and emits nothing. */
  | { type: 'cancel' }
  /** The institution revokes the start link and issues a new one; no event. */
  | { type: 'reissue_link' };

export interface AssignmentState {
  status: AssignmentStatus;
  dueAt: Date | null;
}

export interface TransitionResult {
  status: AssignmentStatus;
  /** Columns to set besides status. */
  set: { startedAt?: Date; submittedAt?: Date; completedAt?: Date; expiredAt?: Date; cancelledAt?: Date; score?: Score | null };
  events: Array<{ type: AssignmentEventType; extra: Record<string, unknown> }>;
}

export type TransitionOutcome = { ok: true; result: TransitionResult } | { ok: false; reason: string };

export function isPastDue(state: AssignmentState, now: Date): boolean {
  return state.status === 'assigned' && state.dueAt !== null && state.dueAt.getTime() <= now.getTime();
}

export function transition(state: AssignmentState, action: LifecycleAction, now: Date): TransitionOutcome {
  const refuse = (reason: string): TransitionOutcome => ({ ok: false, reason });
  const ok = (result: TransitionResult): TransitionOutcome => ({ ok: true, result });

  switch (action.type) {
    case 'start':
      if (state.status !== 'assigned') return refuse(`cannot start from ${state.status}`);
      if (isPastDue(state, now)) return refuse('past dueAt');
      return ok({ status: 'started', set: { startedAt: now }, events: [{ type: 'exam.started', extra: {} }] });
    case 'submit':
      if (state.status !== 'started') return refuse(`cannot submit from ${state.status}`);
      return ok({
        status: 'submitted',
        set: { submittedAt: now, score: action.score },
        events: [{ type: 'exam.completed', extra: { score: action.score } }],
      });
    case 'settle':
      if (state.status !== 'submitted') return refuse(`cannot settle from ${state.status}`);
      if (action.resultVisibility === 'after_review') return ok({ status: 'marking', set: {}, events: [] });
      return ok({ status: 'completed', set: { completedAt: now, score: action.score }, events: [] });
    case 'complete_marking':
      if (state.status !== 'marking') return refuse(`cannot complete marking from ${state.status}`);
      return ok({
        status: 'completed',
        set: { completedAt: now, score: action.score },
        events: [{ type: 'grading.done', extra: { score: action.score } }],
      });
    case 'expire':
      if (!isPastDue(state, now)) return refuse(state.status === 'assigned' ? 'not yet due' : `cannot expire from ${state.status}`);
      return ok({ status: 'expired', set: { expiredAt: now }, events: [{ type: 'assignment.expired', extra: {} }] });
    case 'update':
    case 'reissue_link':
    case 'cancel': {
      if (action.type === 'cancel' && state.status === 'cancelled') return ok({ status: 'cancelled', set: {}, events: [] });
      if (!CHANGEABLE_STATUSES.has(state.status)) return refuse(`cannot change a ${state.status} assignment`);
      // An assigned assignment past dueAt is expired already, whether or not the expiry has been written.
      if (isPastDue(state, now)) return refuse('past dueAt');
      if (action.type === 'update') {
        return ok({ status: state.status, set: {}, events: [{ type: 'assignment.updated', extra: { changes: action.changes } }] });
      }
      if (action.type === 'reissue_link') return ok({ status: state.status, set: {}, events: [] });
      return ok({ status: 'cancelled', set: { cancelledAt: now }, events: [{ type: 'assignment.cancelled', extra: {} }] });
    }
  }
}
