import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db.js';
import type { Tenant } from '../../platform/principal.js';
import { notFound } from '../../platform/errors.js';
import { findAssignment } from '../assignments/find-assignment.js';
import type { StudentSession } from '../assignments/student-sessions.js';
import type { AnswerValue } from '../attempts/answer-values.js';
import { closeAttempt } from '../attempts/close-attempt.js';
import { listAnswers, lockAttempt } from '../attempts/find-attempt.js';
import { autoSubmitAt } from '../attempts/timing.js';
import { deliveredTest } from '../attempts/delivered-test.js';
import { applyTransition } from '../lifecycle/apply-transition.js';
import type { AssignmentStatus } from '../lifecycle/state-machine.js';
import { markSubmission } from './mark-submission.js';
import type { SubmittedBy } from '../attempts/find-attempt.js';


export type SubmitOutcome =
  | { submitted: true; status: AssignmentStatus }
  /** Nothing changed: already submitted (a double click, or the deadline got there first), or not begun. */
  | { submitted: false; status: AssignmentStatus | null; reason: 'already_submitted' | 'not_started' | 'not_due' };

/**
 * Submits an attempt with the answers saved so far, in one transaction:
 * lock the attempt (so no save slips in after the answers are read), auto-mark,
 * then `submit` + `settle` through the state machine, giving
 * `started → submitted → completed` (immediate) or `→ marking` (after_review)
 * and exactly one `exam.completed`. Idempotent: a second call, from a double
 * click or racing the deadline job, finds the attempt submitted and changes nothing.
 */
export async function submitAttempt(
  ctx: AppContext,
  input: { assignmentId: string; by: Exclude<SubmittedBy, 'cancelled'>; tenant: Tenant; userId?: string },
): Promise<SubmitOutcome> {
  const now = ctx.clock.now();
  return withTransaction(ctx.pool, async (tx) => {
    const attempt = await lockAttempt(tx, input.assignmentId, 'update', input.tenant);
    if (attempt && input.userId !== undefined && attempt.userId !== input.userId) throw notFound('assignment');
    if (!attempt) return { submitted: false, status: null, reason: 'not_started' };
    if (attempt.submittedAt) return { submitted: false, status: null, reason: 'already_submitted' };
    if (input.by === 'deadline' && now.getTime() < autoSubmitAt(attempt.deadlineAt).getTime()) {
      return { submitted: false, status: 'started', reason: 'not_due' };
    }

    const test = await deliveredTest(tx, attempt);
    const answers = new Map<string, AnswerValue>(
      (await listAnswers(tx, attempt.institutionId, attempt.assignmentId)).map((a) => [a.questionId, a.value]),
    );
    const score = await markSubmission(tx, {
      assignmentId: attempt.assignmentId,
      institutionId: attempt.institutionId,
      test,
      answers,
      now,
      aiEnabled: ctx.config.ai !== null,
    });
    const outcome = await applyTransition(
      tx,
      attempt.assignmentId,
      [
        { type: 'submit', score },
        { type: 'settle', resultVisibility: test.resultVisibility, score },
      ],
      now,
    );
    // The attempt row says "not submitted", so the assignment must be `started`; anything else is a broken invariant.
    if (!outcome.ok) throw new Error(`submit ${attempt.assignmentId}: ${outcome.reason}`);
    await closeAttempt(tx, attempt.assignmentId, now, input.by);
    return { submitted: true, status: outcome.status };
  });
}

/** The student's own Submit (button, or the page's timer at zero): only their own assignment. */
export async function submitOwnAttempt(ctx: AppContext, session: StudentSession, assignmentId: string): Promise<SubmitOutcome> {
  const row = await findAssignment(ctx.pool, session.institutionId, assignmentId);
  if (!row || row.userId !== session.userId) throw notFound('assignment');
  return submitAttempt(ctx, { assignmentId, by: 'student', tenant: { institutionId: session.institutionId }, userId: session.userId });
}
