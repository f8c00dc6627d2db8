import type { AppContext } from '../../platform/context.js';
import { withTransaction, type Tx } from '../../platform/db.js';
import type { Tenant } from '../../platform/principal.js';
import { notFound } from '../../platform/errors.js';
import { findAssignment } from '../assignments/find-assignment.js';
import type { StudentSession } from '../assignments/student-sessions.js';
import type { AnswerValue } from '../attempts/answer-values.js';
import { closeAttempt } from '../attempts/close-attempt.js';
import { listAnswers, listAnswersOf, lockAttempt, lockAttemptsForDeadline, type Attempt, type StoredAnswer } from '../attempts/find-attempt.js';
import { autoSubmitAt } from '../attempts/timing.js';
import { deliveredTest } from '../attempts/delivered-test.js';
import { applyTransition } from '../lifecycle/apply-transition.js';
import type { AssignmentStatus } from '../lifecycle/state-machine.js';
import type { Score } from '../lifecycle/score.js';
import type { ResultVisibility } from '../catalog/test-settings.js';
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

    const answers = await listAnswers(tx, attempt.institutionId, attempt.assignmentId);
    return submitLockedAttempt(ctx, tx, attempt, answers, input.by, now);
  });
}

/**
 * The submission of an attempt whose update lock the caller's transaction
 * holds, not yet submitted and due: auto-mark the answers read under that
 * lock, `submit` + `settle`, close the attempt.
 */
async function submitLockedAttempt(
  ctx: AppContext,
  tx: Tx,
  attempt: Attempt,
  saved: StoredAnswer[],
  by: Exclude<SubmittedBy, 'cancelled'>,
  now: Date,
): Promise<SubmitOutcome> {
  const test = await deliveredTest(tx, attempt);
  const answers = new Map<string, AnswerValue>(saved.map((a) => [a.questionId, a.value]));
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
      { type: 'settle', resultVisibility: releasedAs(test.resultVisibility, score), score },
    ],
    now,
  );
  // The attempt row says "not submitted", so the assignment must be `started`; anything else is a broken invariant.
  if (!outcome.ok) throw new Error(`submit ${attempt.assignmentId}: ${outcome.reason}`);
  await closeAttempt(tx, attempt.assignmentId, now, by);
  return { submitted: true, status: outcome.status };
}

/**
 * An `immediate` result is released at submission only when every item was
 * marked then (the score is final). An item that got no mark (its imported
 * QTI processing failed to run) waits for a reviewer, as on an
 * `after_review` test, rather than being released as 0.
 */
function releasedAs(visibility: ResultVisibility, score: Score | null): ResultVisibility {
  return visibility === 'immediate' && score?.gradingStatus !== 'final' ? 'after_review' : visibility;
}

/**
 * The deadline's auto-submits of many attempts in one transaction (the
 * deadline job's batches): the attempts locked in one statement (in id
 * order, so two batches never wait on each other in a cycle), their answers
 * read in one, then each submitted as submitAttempt would, and one commit
 * for them all. A batch that fails as a whole (a deadlock with a cancel, a
 * broken attempt) rolls back and is answered with null: the caller submits
 * its attempts one by one instead, so one bad attempt delays only itself.
 */
export async function submitAttemptsAtDeadline(ctx: AppContext, assignmentIds: readonly string[]): Promise<Map<string, SubmitOutcome> | null> {
  const now = ctx.clock.now();
  try {
    return await withTransaction(ctx.pool, async (tx) => {
      const attempts = await lockAttemptsForDeadline(tx, assignmentIds);
      const answers = await listAnswersOf(tx, attempts.map((a) => a.assignmentId));
      const outcomes = new Map<string, SubmitOutcome>();
      for (const id of assignmentIds) outcomes.set(id, { submitted: false, status: null, reason: 'not_started' });
      for (const attempt of attempts) {
        if (attempt.submittedAt) outcomes.set(attempt.assignmentId, { submitted: false, status: null, reason: 'already_submitted' });
        else if (now.getTime() < autoSubmitAt(attempt.deadlineAt).getTime()) {
          outcomes.set(attempt.assignmentId, { submitted: false, status: 'started', reason: 'not_due' });
        } else {
          outcomes.set(attempt.assignmentId, await submitLockedAttempt(ctx, tx, attempt, answers.get(attempt.assignmentId) ?? [], 'deadline', now));
        }
      }
      return outcomes;
    });
  } catch {
    return null;
  }
}

/** The student's own Submit (button, or the page's timer at zero): only their own assignment. */
export async function submitOwnAttempt(ctx: AppContext, session: StudentSession, assignmentId: string): Promise<SubmitOutcome> {
  const row = await findAssignment(ctx.pool, session.institutionId, assignmentId);
  if (!row || row.userId !== session.userId) throw notFound('assignment');
  return submitAttempt(ctx, { assignmentId, by: 'student', tenant: { institutionId: session.institutionId }, userId: session.userId });
}
