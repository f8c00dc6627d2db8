import type { AppContext } from '../../platform/context.js';
import { AppError, invalid, notFound } from '../../platform/errors.js';
import { findAssignment } from '../assignments/find-assignment.js';
import { findAttempt } from '../attempts/find-attempt.js';
import { loadTestVersion } from '../catalog/test-versions.js';
import type { StudentSession } from '../assignments/student-sessions.js';
import { resolveRules, type ProctoringRules } from '../catalog/proctoring-rules.js';
import type { ProctoredMode } from '../catalog/test-settings.js';

/**
 * Which attempt a student-side proctoring request is about, checked for the
 * session's own user. The facts that never change once an attempt begins
 * (owner, test version, mode, rules) are kept in memory, so an upload or a
 * heartbeat costs the session lookup plus its own statement; whether the
 * attempt is still open is never cached (each write checks it in SQL).
 */
export interface ProctoredAttempt {
  assignmentId: string;
  institutionId: string;
  userId: string;
  mode: ProctoredMode;
  rules: ProctoringRules;
  startedAt: Date;
}

/** Recordings still in flight when the student submits are accepted for this long after submission. */
export const UPLOAD_GRACE_MS = 10 * 60_000;

const MAX_CACHED = 20_000;
const cache = new Map<string, ProctoredAttempt>();

/** 404 for anyone else's assignment; 409 for the student's own when it has no attempt yet or is not proctored. */
export async function proctoredAttemptOf(ctx: AppContext, session: StudentSession, assignmentId: string): Promise<ProctoredAttempt> {
  let facts = cache.get(assignmentId);
  if (!facts) {
    const attempt = await findAttempt(ctx.pool, session.institutionId, assignmentId);
    if (!attempt) {
      const own = await findAssignment(ctx.pool, session.institutionId, assignmentId);
      if (!own || own.userId !== session.userId) throw notFound('assignment');
      throw new AppError('invalid_state', 'This test has not begun: proctoring starts when the attempt does.');
    }
    if (attempt.userId !== session.userId) throw notFound('assignment');
    const test = await loadTestVersion(ctx.pool, attempt.testVersionId);
    if (test.proctoring === 'none') throw new AppError('invalid_state', 'This test is not proctored.');
    facts = {
      assignmentId,
      institutionId: attempt.institutionId,
      userId: attempt.userId,
      mode: test.proctoring,
      rules: resolveRules(test.proctoringRules),
      startedAt: attempt.startedAt,
    };
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    cache.set(assignmentId, facts);
  }
  if (facts.institutionId !== session.institutionId || facts.userId !== session.userId) throw notFound('assignment');
  return facts;
}

/**
 * Whether a piece captured at `capturedAt` may still be stored: any time
 * while the attempt runs, and for UPLOAD_GRACE_MS after submission when it
 * was captured before the submission (the last segments are in flight).
 */
export function acceptsUpload(submittedAt: Date | null, capturedAt: Date, now: Date): boolean {
  if (!submittedAt) return true;
  return capturedAt.getTime() <= submittedAt.getTime() && now.getTime() <= submittedAt.getTime() + UPLOAD_GRACE_MS;
}

export function refusedAfterSubmission(): AppError {
  return new AppError(
    'invalid_state',
    'This test has been submitted: only recordings captured before submission are accepted, for 10 minutes after it.',
  );
}

/**
 * How far a page's capture time may lie outside the attempt. The page stamps
 * with the server's clock (it corrects its own by the offset it was given at
 * load), so honest stamps are off by network delay, not by minutes.
 */
export const CAPTURE_SKEW_MS = 2 * 60_000;

/**
 * Refuses a capture time outside the attempt: before its start, or after its
 * end (the submission; while it runs, now, or the deadline if that has
 * passed), each widened by CAPTURE_SKEW_MS. `field` names the header or body
 * field in the 400 invalid_request.
 */
export function checkCaptureTime(field: string, capturedAt: Date, attempt: { startedAt: Date; submittedAt: Date | null; deadlineAt?: Date | null }, now: Date): void {
  const t = capturedAt.getTime();
  const end = attempt.submittedAt?.getTime() ?? Math.min(now.getTime(), attempt.deadlineAt?.getTime() ?? Infinity);
  if (t < attempt.startedAt.getTime() - CAPTURE_SKEW_MS) {
    throw invalid(field, `is before the attempt began (${attempt.startedAt.toISOString()}; 2 minutes of clock skew allowed)`);
  }
  if (t > end + CAPTURE_SKEW_MS) {
    throw invalid(field, `is after the attempt ended or in the future (${new Date(end).toISOString()}; 2 minutes of clock skew allowed)`);
  }
}
