import type { Tx } from '../../platform/db.js';
import { cancelJob } from '../../platform/jobs.js';
import { markAttemptSubmitted } from './attempts-repo.js';
import { autoSubmitKey } from './timing.js';

/**
 * Closes an attempt in the caller's transaction (which holds its update
 * lock): no more saves. A close by the student or with a cancelled
 * assignment also drops the pending deadline job; the deadline job closing
 * the attempt is that job, which settles itself.
 */
export async function closeAttempt(tx: Tx, assignmentId: string, at: Date, by: 'student' | 'deadline' | 'cancelled'): Promise<void> {
  await markAttemptSubmitted(tx, assignmentId, at, by);
  if (by !== 'deadline') await cancelJob(tx, autoSubmitKey(assignmentId));
}
