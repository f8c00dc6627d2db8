import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db.js';
import { AppError, notFound } from '../../platform/errors.js';
import { randomBase62 } from '../../platform/ids.js';
import { cancelJob } from '../../platform/jobs.js';
import { findAssignment, type AssignmentRow } from '../assignments/find-assignment.js';
import { writeAssignmentFields } from '../assignments/assignment-fields.js';
import type { AssignmentsContext } from '../assignments/context.js';
import { expireJobKey } from '../assignments/expire-job.js';
import { expireIfDue, getAssignment, type PartnerView } from '../assignments/get-assignment.js';
import { loadTestVersion } from '../catalog/test-versions.js';
import { deliveredTestOf } from '../attempts/delivered-test.js';
import { beginAttempt } from '../attempts/begin-attempt.js';
import { saveAnswers } from '../attempts/save-answers.js';
import { createSessionForLink, findSession, type StudentSession } from '../assignments/student-sessions.js';
import { submitAttempt } from '../marking/submit-attempt.js';
import { applyTransition } from '../lifecycle/apply-transition.js';
import type { AssignmentStatus } from '../lifecycle/state-machine.js';
import { getMarkingView } from '../marking/get-marking-view.js';
import { currentMarksVersion } from '../marking/marks-version.js';
import { finishMarking } from '../marking/reviewer-marking.js';
import { proctoredAttemptOf } from '../proctoring/proctored-attempt.js';
import { recordHeartbeat } from '../proctoring/record-heartbeat.js';
import { acceptsSignal } from '../proctoring/rules.js';
import { type ProctoringRules } from '../catalog/proctoring-rules.js';
import { answersForScore, marksForScore } from './simulated-answers.js';
import { findScoreTarget, saveScoreTarget } from './score-targets-repo.js';
import type { SimulateAction, SimulateBody, ViolationKind } from './schemas.js';

/**
 * `POST /assignments/{id}/simulate` (test-mode keys only): plays one step of
 * the student's or the reviewer's part on a test-mode assignment, through the
 * very services the real flow uses (Begin, autosave, Submit, the proctoring
 * heartbeat, a reviewer's Finish, the due-date expiry), so the state machine,
 * the marks and the events are exactly those of a real run, and the events go
 * to the institution's test-mode webhook endpoints.
 *
 * Glossary: the simulated student is the assignment's own user (as if they
 * had opened the start link); the simulated reviewer records its marks as
 * `test-mode simulation`.
 */
export const SIMULATED_REVIEWER = 'test-mode simulation';

/** The status each action needs, and how to say so when it is not. */
const NEEDS: Record<SimulateAction, { status: AssignmentStatus; hint: string }> = {
  start: { status: 'assigned', hint: 'only an assigned assignment can start' },
  submit: { status: 'started', hint: 'only a started assignment can be submitted (simulate start first)' },
  violation: { status: 'started', hint: 'a violation is detected only while the test runs (simulate start first)' },
  finish_marking: { status: 'marking', hint: 'only an assignment in marking can finish marking (after_review tests, once submitted)' },
  expire: { status: 'assigned', hint: 'only an assigned assignment can expire' },
};

function wrongState(action: SimulateAction, status: AssignmentStatus): AppError {
  return new AppError('invalid_state', `This assignment is ${status}: ${NEEDS[action].hint}.`);
}

/** Fields that belong to another action are refused, not ignored: the caller meant something else. */
function checkFields(body: SimulateBody): void {
  const allowed: Record<SimulateAction, ReadonlyArray<keyof SimulateBody>> = {
    start: [],
    submit: ['answers', 'score'],
    violation: ['violationKind'],
    finish_marking: ['score'],
    expire: [],
  };
  for (const field of ['answers', 'score', 'violationKind'] as const) {
    if (body[field] !== undefined && !allowed[body.action].includes(field)) {
      throw new AppError('invalid_request', `${field}: is not used by the ${body.action} action.`, [{ field, message: `is not used by the ${body.action} action` }]);
    }
  }
  if (body.answers !== undefined && body.score !== undefined) {
    throw new AppError('invalid_request', 'Give answers or score, not both.', [{ field: 'score', message: 'cannot be combined with answers' }]);
  }
}

/**
 * The assignment's own student, signed in as opening the start link does: a
 * real session row (the autosave statement re-checks it), which expires and
 * is purged like any other.
 */
async function studentOf(ctx: AppContext, row: AssignmentRow, now: Date): Promise<StudentSession> {
  const opened = await createSessionForLink(ctx.pool, { institutionId: row.institutionId, userId: row.userId, assignmentId: row.id, linkVersion: row.linkVersion, now });
  const session = opened && (await findSession(ctx.pool, opened.sessionId, now));
  // The link was reissued between the read and the insert: a concurrent change, reported as the state it left.
  if (!session) throw new AppError('invalid_state', 'The assignment changed while the step was simulated. Read it and try again.');
  return session;
}

export async function simulateAssignment(
  ctx: AssignmentsContext,
  partner: { institutionId: string; livemode: boolean },
  assignmentId: string,
  body: SimulateBody,
): Promise<PartnerView> {
  checkFields(body);
  const { institutionId } = partner;
  const find = () => findAssignment(ctx.pool, institutionId, assignmentId, false);
  let row = await find();
  if (!row) throw notFound('assignment');
  // As every read does, an assigned assignment past dueAt is expired first, except by the action that expires it.
  if (body.action !== 'expire' && (await expireIfDue(ctx.pool, row, ctx.clock.now()))) row = (await find())!;
  if (row.status !== NEEDS[body.action].status) throw wrongState(body.action, row.status);

  let after: AssignmentStatus | null;
  switch (body.action) {
    case 'start':
      after = (await beginAttempt(ctx, await studentOf(ctx, row, ctx.clock.now()), row.id)) === 'started' ? 'started' : null;
      break;
    case 'submit':
      after = await simulateSubmit(ctx, row, body);
      break;
    case 'violation':
      await simulateViolation(ctx, row, body.violationKind);
      after = 'started';
      break;
    case 'finish_marking':
      after = await simulateFinishMarking(ctx, row, body.score);
      break;
    case 'expire':
      after = await simulateExpiry(ctx, row);
      break;
  }
  // A concurrent change got there first (a student, a control, the deadline): say what the assignment is now.
  if (after === null) throw wrongState(body.action, (await find())?.status ?? row.status);
  return getAssignment(ctx, institutionId, row.id, false);
}

/**
 * Saves the answers (given, or built for a score) as autosave does, then
 * submits as the student's Submit does. A score is remembered as the run's
 * target: essays wait for marking, and a later finish_marking without its own
 * score marks them towards it.
 */
async function simulateSubmit(ctx: AppContext, row: AssignmentRow, body: SimulateBody): Promise<AssignmentStatus | null> {
  const now = ctx.clock.now();
  let answers = body.answers;
  if (body.score !== undefined) answers = answersForScore((await deliveredTestOf(ctx.pool, row)).questions, body.score);
  if (answers && answers.length > 0) {
    // Newer than anything a browser saved (versions only ever rise), so these answers are the ones kept.
    const version = now.getTime();
    await saveAnswers(ctx, await studentOf(ctx, row, now), row.id, answers.map((a) => ({ questionId: a.questionId, value: a.value, version })));
  }
  const outcome = await submitAttempt(ctx, { assignmentId: row.id, by: 'student', tenant: { institutionId: row.institutionId }, userId: row.userId });
  if (!outcome.submitted) return null;
  if (body.score !== undefined && outcome.status === 'marking') await saveScoreTarget(ctx.pool, row.institutionId, row.id, body.score);
  return outcome.status;
}

/** The threshold at which a signal of `kind` is critical under the test's rules. */
function criticalSeconds(kind: ViolationKind, rules: ProctoringRules): number {
  switch (kind) {
    case 'no_face':
      return rules.noFaceSeconds;
    case 'multiple_faces':
      return rules.multipleFacesSeconds;
    case 'left_test':
      return rules.leftTestSeconds;
    case 'camera_stopped':
      return 1;
  }
}

/**
 * One heartbeat from the simulated test page reporting a signal that has
 * lasted just long enough to be critical under the test's rules: the
 * proctoring module stores the flag and sends its `violation.detected`.
 */
async function simulateViolation(ctx: AppContext, row: AssignmentRow, requested: ViolationKind | undefined): Promise<void> {
  const test = await loadTestVersion(ctx.pool, row.testVersionId);
  if (test.proctoring === 'none') throw new AppError('invalid_state', 'This test is not proctored: it has no violations to simulate.');
  const kind = requested ?? (test.proctoring === 'live_ai' ? 'multiple_faces' : 'left_test');
  if (!acceptsSignal(test.proctoring, kind)) {
    throw new AppError('invalid_state', `This test is proctored in ${test.proctoring} mode, which does not analyse faces: ${kind} needs a live_ai test.`);
  }
  const now = ctx.clock.now();
  const student = await studentOf(ctx, row, now);
  const attempt = await proctoredAttemptOf(ctx, student, row.id);
  const durationSeconds = criticalSeconds(kind, attempt.rules);
  const startedAt = new Date(Math.max(attempt.startedAt.getTime(), now.getTime() - durationSeconds * 1000));
  await recordHeartbeat(ctx, student, row.id, {
    signals: [{ id: `sim_${randomBase62(16)}`, kind, startedAt: startedAt.toISOString(), durationSeconds, ongoing: false }],
    cameraActive: kind !== 'camera_stopped',
    fullscreen: null,
  });
}

/**
 * A reviewer's Finish: every item awaiting a mark gets its points (full, or
 * towards the score: this call's, else the one the simulated submit aimed
 * at), per criterion where the question has criteria, through the marking
 * service.
 */
async function simulateFinishMarking(ctx: AppContext, row: AssignmentRow, requested: number | undefined): Promise<AssignmentStatus | null> {
  const score = requested ?? (await findScoreTarget(ctx.pool, row.institutionId, row.id));
  const view = await getMarkingView(ctx.pool, row.id, { institutionId: row.institutionId });
  const marks = marksForScore(
    view.items.map((i) => ({ questionId: i.questionId, maxPoints: i.maxPoints, needsMarking: i.needsMarking, points: i.mark?.points ?? null, criteria: i.criteria })),
    score,
  );
  const done = await finishMarking(ctx, {
    institutionId: row.institutionId,
    assignmentId: row.id,
    markedBy: SIMULATED_REVIEWER,
    // A question marked per criterion is marked as the portal marks it: each criterion its points.
    marks: marks.map(({ criteria, ...m }) => ({ ...m, comment: '', ...(criteria ? { criteria: criteria.map((c) => ({ ...c, comment: '' })) } : {}) })),
    baseVersion: await currentMarksVersion(ctx.pool, row.institutionId, row.id),
  });
  return done.status;
}

/**
 * Expiry as at the due date: dueAt moves to now (no `assignment.updated`:
 * it is the simulated passing of time, not a change by the institution) and
 * the same `expire` transition the due-date job applies runs, in one
 * transaction. The scheduled expiry job, now pointless, is dropped.
 */
async function simulateExpiry(ctx: AppContext, row: AssignmentRow): Promise<AssignmentStatus | null> {
  const now = ctx.clock.now();
  return withTransaction(ctx.pool, async (tx) => {
    if (!row.dueAt || row.dueAt.getTime() > now.getTime()) await writeAssignmentFields(tx, row.institutionId, row.id, { dueAt: now });
    await cancelJob(tx, expireJobKey(row.id));
    const outcome = await applyTransition(tx, row.id, [{ type: 'expire' }], now);
    // Thrown, so the moved dueAt rolls back with it.
    if (!outcome.ok) throw wrongState('expire', outcome.status ?? row.status);
    return outcome.status;
  });
}
