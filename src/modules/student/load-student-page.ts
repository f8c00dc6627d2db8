import type { AppContext } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import { effectiveProctoringRelaxations } from '../assignments/accommodations.js';
import { findAssignment, type AssignmentRow } from '../assignments/find-assignment.js';
import { expireIfDue } from '../assignments/get-assignment.js';
import { getInstitution } from '../institutions/institutions.js';
import type { Score } from '../lifecycle/score.js';
import type { SubmittedStatus } from '../lifecycle/state-machine.js';
import { deliver, type DeliveredTest } from '../catalog/delivery.js';
import { attemptProctoringState, proctoringPageState, type ProctoringPageState } from '../proctoring/page-state.js';
import { findAttempt, listAnswers, type StoredAnswer } from '../attempts/find-attempt.js';
import { currentAnswerFiles, summaryOf, type AnswerFileSummary } from '../attempts/answer-files.js';
import { returnUrl } from './return-url.js';
import type { StudentSession } from '../assignments/student-sessions.js';
import { submitAttempt } from '../marking/submit-attempt.js';
import { loadTestVersion } from '../catalog/test-versions.js';
import { acceptsSaves, timeAllowedMs } from '../attempts/timing.js';

interface Common {
  assignmentId: string;
  institutionName: string;
  /** The test as this candidate is given it (every question before the attempt begins). */
  test: DeliveredTest;
  csrfToken: string;
  /** For the pages' scripts of a proctored test (camera check, recording, heartbeat); null for proctoring none. */
  proctoring: ProctoringPageState | null;
  /** A test-mode assignment (livemode false): every page says so. */
  testMode: boolean;
}

/** What the student sees at /a/{assignmentId}, by status. */
export type StudentPage =
  | (Common & { kind: 'intro'; dueAt: Date | null })
  | (Common & { kind: 'test'; deadlineAt: Date; serverNow: Date; answers: StoredAnswer[]; files: Record<string, AnswerFileSummary>; directUploads: boolean })
  | (Common & { kind: 'done'; status: SubmittedStatus; submittedAt: Date | null; score: Score | null; returnUrl: string })
  | (Common & { kind: 'expired'; dueAt: Date | null; returnUrl: string })
  | (Common & { kind: 'withdrawn'; returnUrl: string });

/**
 * Loads the student's assignment for the session's user (anyone else's is
 * not found), applying the lazy checks first: an `assigned` assignment past
 * dueAt expires, and a `started` one past its deadline plus grace is
 * submitted now if the deadline job has not run yet.
 */
export async function loadStudentPage(ctx: AppContext, session: StudentSession, assignmentId: string): Promise<StudentPage> {
  const now = ctx.clock.now();
  const reload = async () => (await findAssignment(ctx.pool, session.institutionId, assignmentId))!;
  let row: AssignmentRow | null = await findAssignment(ctx.pool, session.institutionId, assignmentId);
  if (!row || row.userId !== session.userId) throw notFound('assignment');
  if (await expireIfDue(ctx.pool, row, now)) row = await reload();

  let attempt = row.status === 'started' ? await findAttempt(ctx.pool, row.institutionId, row.id) : null;
  if (attempt && !acceptsSaves(attempt.deadlineAt, now)) {
    await submitAttempt(ctx, { assignmentId: row.id, by: 'deadline', tenant: { institutionId: row.institutionId } });
    row = await reload();
    attempt = null;
  }

  const [version, institution] = await Promise.all([loadTestVersion(ctx.pool, row.testVersionId), getInstitution(ctx.pool, row.institutionId)]);
  const test = deliver(version, attempt?.delivery ?? null);
  const common: Common = {
    assignmentId: row.id,
    institutionName: institution?.name ?? '',
    test,
    csrfToken: session.csrfToken,
    proctoring: proctoringPageState(test, ctx.config, effectiveProctoringRelaxations(row)),
    testMode: !row.livemode,
  };
  const back = returnUrl(row.callbackUrl, { assignmentId: row.id, externalUserId: row.externalUserId, status: row.status });

  switch (row.status) {
    case 'assigned': {
      // "Time allowed" on the intro page is this student's: extra time included.
      const minutes = timeAllowedMs(test.durationMinutes, row.accommodations) / 60_000;
      return { ...common, test: { ...test, durationMinutes: minutes }, kind: 'intro', dueAt: row.dueAt };
    }
    case 'started': {
      if (!attempt) throw new Error(`assignment ${row.id} is started without an attempt`);
      const hasFiles = test.questions.some((q) => q.type === 'file_upload');
      const [answers, proctoring, files] = await Promise.all([
        listAnswers(ctx.pool, row.institutionId, row.id),
        attemptProctoringState(ctx.pool, common.proctoring, row.institutionId, row.id),
        hasFiles ? currentAnswerFiles(ctx.pool, row.institutionId, row.id) : null,
      ]);
      // Per file_upload question answered with a file: what the page shows as "Your file" after a reload.
      const fileMap = Object.fromEntries([...(files ?? new Map()).entries()].map(([questionId, f]) => [questionId, summaryOf(f)]));
      return { ...common, proctoring, kind: 'test', deadlineAt: attempt.deadlineAt, serverNow: now, answers, files: fileMap, directUploads: ctx.config.storage.kind === 's3' };
    }
    case 'expired':
      return { ...common, kind: 'expired', dueAt: row.dueAt, returnUrl: back };
    case 'cancelled':
      return { ...common, kind: 'withdrawn', returnUrl: back };
    default:
      return { ...common, kind: 'done', status: row.status, submittedAt: row.submittedAt, score: row.score, returnUrl: back };
  }
}
