import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db.js';
import { AppError, notFound, type ErrorDetail } from '../../platform/errors.js';
import { tenantReaches, type Tenant } from '../../platform/principal.js';
import { findAssignmentById } from '../assignments/find-assignment.js';
import { listAnswers, lockAttempt } from '../attempts/find-attempt.js';
import { deliveredTestOf } from '../attempts/delivered-test.js';
import { needsMarker, roundPoints } from './auto-mark.js';
import { recordReviewerMark } from './ai/suggestions-repo.js';
import { completeMarking } from './complete-marking.js';
import { getMarkingView, type MarkingView } from './get-marking-view.js';
import { listMarks, upsertReviewerMark } from './marks-repo.js';
import { MarksChangedError, marksVersion } from './marks-version.js';
import { resolveCriterionMark, type CriterionInput } from './criterion-marks.js';
import type { CriterionMark } from './marks-repo.js';
import { auditIn, type AuditContext } from '../staff/audit.js';
import { checkFeedback, writeCandidateFeedback, type CandidateFeedbackInput } from '../assignments/candidate-feedback.js';

export interface MarksInput {
  /**
   * Per question: `points`, or for a question with criteria `criteria` (each
   * criterion's points and comment; the points are their sum, and `points`,
   * when sent too, must equal it).
   */
  marks: Array<{ questionId: string; points?: number; criteria?: CriterionInput[]; comment?: string }>;
  complete: boolean;
  markedBy?: string;
  /**
   * The marks version (marksVersion) the reviewer's form was based on. When
   * given and the stored marks have changed since, nothing is written and
   * MarksChangedError is thrown: a mark is never silently overwritten.
   */
  expectedVersion?: string;
  /**
   * Feedback for the candidate (assignments/candidate-feedback.ts), on any
   * question they were given and overall: replaces the stored feedback when
   * sent, keeps it when left out. Released with the result.
   */
  feedback?: CandidateFeedbackInput;
}

/**
 * Records reviewer marks and, with `complete`, finishes marking:
 * `marking → completed` with the final score (every mark, auto and
 * reviewer, over the test's maximum) and `grading.done`, in one transaction.
 * Each mark must name an item that needs a marker (an essay, or a
 * short_text answer left to AI marking) with 0 ≤ points ≤ its points (a
 * question with criteria: every criterion, each within its own points,
 * criterion-marks.ts); an
 * item with an AI suggestion keeps the reviewer's points beside the model's. Completing is refused while an item
 * still awaits a mark; an all-auto `after_review` test completes with no
 * marks, confirming its auto score. Any refusal stores nothing.
 * Feedback for the candidate, when sent, is checked and stored in the same
 * transaction (any refusal stores none of it either).
 * Shared by the operator API (every institution) and the reviewer portal
 * (its institution: another institution's assignment is not found).
 */
export async function recordMarks(
  ctx: AppContext,
  assignmentId: string,
  input: MarksInput,
  scope: Tenant,
  audit?: AuditContext,
): Promise<MarkingView> {
  const now = ctx.clock.now();
  await withTransaction(ctx.pool, async (tx) => {
    const attempt = await lockAttempt(tx, assignmentId, 'update', scope);
    const row = await findAssignmentById(tx, assignmentId);
    if (!row || !tenantReaches(scope, row.institutionId)) throw notFound('assignment');
    if (row.status !== 'marking' || !attempt) {
      throw new AppError('invalid_state', `Marks can be recorded only while the assignment is in marking; it is ${row.status}.`);
    }
    const test = await deliveredTestOf(tx, row);
    const byId = new Map(test.questions.map((q) => [q.id, q]));
    const answerOf = new Map((await listAnswers(tx, row.institutionId, row.id)).map((a) => [a.questionId, a.value]));
    const awaitsMarker = (q: (typeof test.questions)[number]) => needsMarker(q, answerOf.get(q.id));

    const details: ErrorDetail[] = [];
    const seen = new Set<string>();
    const resolved: Array<{ questionId: string; points: number; criteria: CriterionMark[] | null; comment: string | null }> = [];
    input.marks.forEach((m, i) => {
      const q = byId.get(m.questionId);
      if (!q) return details.push({ field: `marks.${i}.questionId`, message: 'is not a question of this test' });
      if (!awaitsMarker(q)) return details.push({ field: `marks.${i}.questionId`, message: 'is auto-marked; only items awaiting a reviewer take marks' });
      if (seen.has(m.questionId)) return details.push({ field: `marks.${i}.questionId`, message: 'appears twice' });
      seen.add(m.questionId);
      const mark = resolveCriterionMark(q, m, `marks.${i}`, details);
      if (!mark) return;
      if (mark.points > q.points) return details.push({ field: `marks.${i}.points`, message: `must be between 0 and ${q.points}, the question's points` });
      resolved.push({ questionId: m.questionId, points: roundPoints(mark.points), criteria: mark.criteria, comment: m.comment ?? null });
    });
    const feedback = input.feedback ? checkFeedback(input.feedback, test.questions.map((q) => q.id), 'feedback', details) : null;
    if (details.length > 0) throw new AppError('invalid_request', `${details[0]!.field}: ${details[0]!.message}`, details);

    const existing = await listMarks(tx, row.institutionId, row.id);
    if (input.expectedVersion !== undefined && marksVersion(existing) !== input.expectedVersion) throw new MarksChangedError();
    if (input.complete) {
      const marked = new Set([...existing.map((m) => m.questionId), ...input.marks.map((m) => m.questionId)]);
      const missing = test.questions.filter((q) => awaitsMarker(q) && !marked.has(q.id));
      if (missing.length > 0) {
        throw new AppError(
          'invalid_state',
          `Marking cannot complete: ${missing.length} item(s) still await a mark.`,
          missing.map((q) => ({ field: 'marks', message: `question ${q.id} awaits a mark` })),
        );
      }
    }

    for (const m of resolved) {
      await upsertReviewerMark(tx, {
        assignmentId: row.id,
        institutionId: row.institutionId,
        questionId: m.questionId,
        points: m.points,
        criteria: m.criteria,
        comment: m.comment,
        markedBy: input.markedBy ?? null,
        now,
      });
      await recordReviewerMark(tx, { institutionId: row.institutionId, assignmentId: row.id, questionId: m.questionId, points: m.points, now });
    }
    if (feedback) {
      await writeCandidateFeedback(tx, { assignmentId: row.id, institutionId: row.institutionId, feedback, writtenBy: input.markedBy ?? null, now });
    }
    await auditIn(tx, audit, {
      action: input.complete ? 'marking.completed' : 'marks.recorded',
      objectType: 'assignment',
      objectId: row.id,
      institutionId: row.institutionId,
      details: {
        marks: resolved.map((m) => ({ questionId: m.questionId, points: m.points, ...(m.criteria ? { criteria: m.criteria.map((c) => ({ criterion: c.criterion, points: c.points })) } : {}) })),
        markedBy: input.markedBy ?? null,
        // Which feedback was written, not its words (the audit log is read by every admin).
        ...(feedback ? { feedback: { overall: feedback.overall !== null, questionIds: feedback.questions.map((q) => q.questionId) } } : {}),
      },
    });
    if (!input.complete) return;

    const outcome = await completeMarking(tx, { assignmentId: row.id, institutionId: row.institutionId, test, now });
    if (!outcome.ok) throw new AppError('invalid_state', `Marking cannot complete: the assignment is ${outcome.status}.`);
  });
  return getMarkingView(ctx.pool, assignmentId, scope);
}

/**
 * Marks sent with the operator token: automation, not a person. `markedBy`
 * from the body is kept only as the automation's name and recorded as
 * `operator-token:<name>` (or `operator-token`), so it can never pass for a
 * reviewer; people mark in the portal, where the signed-in reviewer is recorded.
 */
export function recordOperatorMarks(ctx: AppContext, assignmentId: string, input: MarksInput, ip: string): Promise<MarkingView> {
  const markedBy = input.markedBy ? `operator-token:${input.markedBy}` : 'operator-token';
  return recordMarks(ctx, assignmentId, { ...input, markedBy }, { kind: 'operator' }, { actor: { kind: 'operator_token' }, ip });
}
