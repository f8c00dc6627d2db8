import type { Tx } from '../../platform/db.js';
import { scheduleAutoSubmit } from './auto-submit-job.js';
import { type Attempt } from './find-attempt.js';
import { setAttemptDeadline } from './attempts-repo.js';
import { closeAttempt } from './close-attempt.js';
import { loadTestVersion } from '../catalog/test-versions.js';
import { deadlineFor, type ExtraTime } from './timing.js';

/**
 * What the institution's controls (PATCH, cancel) do to a running attempt,
 * each in the caller's transaction. The caller has locked the attempt
 * (`lockAttempt`, update) before the assignment row (assignments/change-lock.ts),
 * the lock order that submission and saves use, so a change and a submission
 * never interleave.
 */

/**
 * Recomputes an open attempt's deadline from its start, the test's duration
 * and the new extra time, and moves the deadline and the auto-submit job
 * together. A deadline that would already be past is set to now: reducing
 * extra time can end an attempt, never reach back before this moment.
 * Returns the move, or null when the deadline stays where it was.
 */
export async function applyExtraTime(tx: Tx, attempt: Attempt, extra: ExtraTime | null, now: Date): Promise<{ from: Date; to: Date } | null> {
  if (attempt.submittedAt) return null;
  const test = await loadTestVersion(tx, attempt.testVersionId);
  const computed = deadlineFor(attempt.startedAt, test.durationMinutes, extra);
  const to = computed.getTime() < now.getTime() ? now : computed;
  if (to.getTime() === attempt.deadlineAt.getTime()) return null;
  await setAttemptDeadline(tx, attempt.assignmentId, to);
  await scheduleAutoSubmit(tx, attempt.assignmentId, to);
  return { from: attempt.deadlineAt, to };
}

/**
 * Closes a running attempt with its cancelled assignment: no more saves, no
 * auto-submit. The answers stay where they are, readable by the institution.
 */
export async function closeAttemptOnCancel(tx: Tx, attempt: Attempt, now: Date): Promise<void> {
  if (attempt.submittedAt) return;
  await closeAttempt(tx, attempt.assignmentId, now, 'cancelled');
}
