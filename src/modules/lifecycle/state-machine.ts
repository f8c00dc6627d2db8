import type { Score } from '../marking/score.js';

/**
 * The assignment state machine of spec section 3, pure: no I/O, no clock of
 * its own. Every status change in the code base goes through `transition`,
 * and the transition writer stores what it returns in one transaction.
 *
 * Glossary
 * - assigned: created, not begun.           - started: the attempt is running.
 * - submitted: handed in, awaiting marking.  - marking: a reviewer marks (after_review tests).
 * - completed: result available.            - expired: not begun before dueAt.
 */
export type AssignmentStatus = 'assigned' | 'started' | 'submitted' | 'marking' | 'completed' | 'expired';

export type EventType = 'exam.started' | 'exam.completed' | 'grading.done' | 'assignment.expired' | 'violation.detected';

export type LifecycleAction =
  | { type: 'start' }
  /** The student (or the deadline) submits; `score` is the auto-marked score, null when nothing is auto-markable. */
  | { type: 'submit'; score: Score | null }
  /** After submission: `immediate` tests complete at once, `after_review` tests go to marking. */
  | { type: 'settle'; resultVisibility: 'immediate' | 'after_review'; score: Score | null }
  /** A reviewer finishes marking. */
  | { type: 'complete_marking'; score: Score }
  | { type: 'expire' };

export interface AssignmentState {
  status: AssignmentStatus;
  dueAt: Date | null;
}

export interface TransitionResult {
  status: AssignmentStatus;
  /** Columns to set besides status. */
  set: { startedAt?: Date; submittedAt?: Date; completedAt?: Date; expiredAt?: Date; score?: Score | null };
  events: Array<{ type: EventType; extra: Record<string, unknown> }>;
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
  }
}
