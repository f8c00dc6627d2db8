import type { AppContext } from '../../platform/context.js';
import type { ContentFormat } from '../catalog/content/content-format.js';
import { joinTransaction, withTransaction, type Queryable } from '../../platform/db.js';
import { AppError, type ErrorDetail } from '../../platform/errors.js';
import { deliveredTestOf } from '../attempts/delivered-test.js';
import { asShown } from '../catalog/delivery.js';
import { lockAttempt } from '../attempts/find-attempt.js';
import { auditIn, type AuditContext } from '../staff/audit.js';
import type { Passage, Question } from '../catalog/schemas.js';
import { getMarkingView, type MarkingView } from './get-marking-view.js';
import { listMarks } from './marks-repo.js';
import { MarksChangedError, marksVersion } from './marks-version.js';
import { recordMarks } from './record-marks.js';
import { checkFeedback, type CandidateFeedback, type CandidateFeedbackInput } from '../assignments/candidate-feedback.js';

/**
 * Marking by a signed-in reviewer (the portal's Marking item): open an item
 * (recorded, so a second reviewer is told who else has it open), keep a
 * draft per reviewer, and finish. Drafts and finishing carry the marks
 * version the reviewer started from; a stale one is refused, never applied.
 * Every function is scoped to the institution.
 */
export interface DraftMark {
  questionId: string;
  /** For a question with criteria: the sum of the criteria points once each has points, else null. */
  points: number | null;
  comment: string;
  /** A question with criteria: each criterion's points (null: not given yet) and comment, in the question's order. */
  criteria?: Array<{ criterion: string; points: number | null; comment: string }>;
}

export interface Reviewer {
  staffId: string;
  /** How other reviewers see them: a name, or the e-mail address. */
  label: string;
}

export interface OpenedItem {
  view: MarkingView;
  /** The questions given to the candidate by id, with their option texts in the order shown. */
  questions: Map<string, Question>;
  /** How the version's texts are written: the marking page renders them in it (docs/content.md). */
  contentFormat: ContentFormat;
  /** The version's passages: each question shows the title of the one it names. */
  passages: Passage[];
  /** The language the version declares (null: none) and its translations: the marking page marks the texts with it (catalog/content/content-lang.ts). */
  language: string | null;
  translations: Readonly<Record<string, unknown>>;
  version: string;
  /** The reviewer's draft, with the feedback for the candidate it holds (null: none written). */
  draft: { marks: DraftMark[]; feedback: CandidateFeedback | null; baseVersion: string; updatedAt: Date } | null;
  /** Other reviewers who opened the item in the last `PRESENCE_WINDOW_MS`, latest first. */
  others: Array<{ label: string; openedAt: Date }>;
}

export const PRESENCE_WINDOW_MS = 30 * 60 * 1000;

export async function openMarkingItem(ctx: AppContext, institutionId: string, assignmentId: string, reviewer: Reviewer): Promise<OpenedItem> {
  const view = await getMarkingView(ctx.pool, assignmentId, { institutionId });
  const now = ctx.clock.now();
  const [test, marks, others, draft] = await Promise.all([
    deliveredTestOf(ctx.pool, { id: assignmentId, institutionId, testVersionId: view.testVersionId }),
    listMarks(ctx.pool, institutionId, assignmentId),
    ctx.pool.query<{ staff_label: string; opened_at: Date }>(
      `SELECT staff_label, opened_at FROM marking_opens
        WHERE institution_id = $1 AND assignment_id = $2 AND staff_id <> $3 AND opened_at >= $4
        ORDER BY opened_at DESC`,
      [institutionId, assignmentId, reviewer.staffId, new Date(now.getTime() - PRESENCE_WINDOW_MS)],
    ),
    findDraft(ctx.pool, institutionId, assignmentId, reviewer.staffId),
  ]);
  if (view.status === 'marking') {
    await ctx.pool.query(
      `INSERT INTO marking_opens (assignment_id, institution_id, staff_id, staff_label, opened_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (assignment_id, staff_id) DO UPDATE SET staff_label = EXCLUDED.staff_label, opened_at = EXCLUDED.opened_at`,
      [assignmentId, institutionId, reviewer.staffId, reviewer.label, now],
    );
  }
  return { view, questions: new Map(test.questions.map((q) => [q.id, asShown(q, test.delivery)])), contentFormat: test.contentFormat, passages: test.passages ?? [], language: test.language, translations: test.translations, version: marksVersion(marks), draft, others: others.rows.map((r) => ({ label: r.staff_label, openedAt: r.opened_at })) };
}

async function findDraft(db: Queryable, institutionId: string, assignmentId: string, staffId: string): Promise<OpenedItem['draft']> {
  const { rows } = await db.query<{ marks: DraftMark[]; feedback: CandidateFeedback | null; base_version: string; updated_at: Date }>(
    'SELECT marks, feedback, base_version, updated_at FROM marking_drafts WHERE institution_id = $1 AND assignment_id = $2 AND staff_id = $3',
    [institutionId, assignmentId, staffId],
  );
  const r = rows[0];
  return r ? { marks: r.marks, feedback: r.feedback ?? null, baseVersion: r.base_version, updatedAt: r.updated_at } : null;
}

/**
 * Checks marks against the items that take them: each names a question a
 * reviewer marks, once, with 0 ≤ points ≤ its points; `complete` also
 * requires points for every such question. Fields are `points-<questionId>`,
 * the form's field names, so a page can show each message beside its field.
 * A question with criteria is checked per criterion instead, each within its
 * own points (fields `criterion-<questionId>-<n>`, n from 0 in the
 * question's criterion order).
 */
export function checkDraftMarks(view: MarkingView, marks: DraftMark[], complete: boolean): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const given = new Map(marks.map((m) => [m.questionId, m]));
  for (const m of marks) {
    const item = view.items.find((i) => i.questionId === m.questionId);
    if (!item || !item.needsMarking) details.push({ field: `points-${m.questionId}`, message: 'is not an item awaiting a reviewer' });
  }
  for (const item of view.items.filter((i) => i.needsMarking)) {
    if (item.criteria) {
      const mine = given.get(item.questionId)?.criteria ?? [];
      item.criteria.forEach((c, n) => {
        const points = mine.find((x) => x.criterion === c.criterion)?.points ?? null;
        const field = `criterion-${item.questionId}-${n}`;
        if (points === null) {
          if (complete) details.push({ field, message: `Enter the points for “${c.criterion}” of “${item.prompt}” (0 to ${c.points})` });
        } else if (!Number.isFinite(points) || points < 0 || points > c.points) {
          details.push({ field, message: `The points for “${c.criterion}” of “${item.prompt}” must be between 0 and ${c.points}` });
        }
      });
      continue;
    }
    const points = given.get(item.questionId)?.points ?? null;
    const field = `points-${item.questionId}`;
    if (points === null) {
      if (complete) details.push({ field, message: `Enter the points for “${item.prompt}” (0 to ${item.maxPoints})` });
    } else if (!Number.isFinite(points) || points < 0 || points > item.maxPoints) {
      details.push({ field, message: `The points for “${item.prompt}” must be between 0 and ${item.maxPoints}` });
    }
  }
  return details;
}

function refuse(details: ErrorDetail[]): never {
  throw new AppError('invalid_request', details[0]!.message, details);
}

/** Stores (replaces) the reviewer's draft. Refused when the item left `marking` or its marks changed since `baseVersion`. */
export async function saveMarkingDraft(
  ctx: AppContext,
  input: { institutionId: string; assignmentId: string; staffId: string; marks: DraftMark[]; feedback?: CandidateFeedbackInput; baseVersion: string },
  audit?: AuditContext,
): Promise<void> {
  await withTransaction(ctx.pool, async (tx) => {
    const view = await getMarkingView(tx, input.assignmentId, { institutionId: input.institutionId });
    if (view.status !== 'marking') throw new MarksChangedError();
    // Locks the marks' owner row so a finish cannot slip between the check and the write.
    await lockAttempt(tx, input.assignmentId, 'update', { institutionId: input.institutionId });
    if (marksVersion(await listMarks(tx, input.institutionId, input.assignmentId)) !== input.baseVersion) throw new MarksChangedError();
    const details = checkDraftMarks(view, input.marks, false);
    const feedback = input.feedback ? checkFeedback(input.feedback, view.items.map((i) => i.questionId), 'feedback', details) : null;
    if (details.length > 0) refuse(details);
    await tx.query(
      `INSERT INTO marking_drafts (assignment_id, institution_id, staff_id, marks, feedback, base_version, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (assignment_id, staff_id) DO UPDATE SET marks = EXCLUDED.marks, feedback = EXCLUDED.feedback, base_version = EXCLUDED.base_version, updated_at = EXCLUDED.updated_at`,
      [input.assignmentId, input.institutionId, input.staffId, JSON.stringify(input.marks), feedback ? JSON.stringify(feedback) : null, input.baseVersion, ctx.clock.now()],
    );
    await auditIn(tx, audit, { action: 'marking.draft_saved', objectType: 'assignment', objectId: input.assignmentId, institutionId: input.institutionId });
  });
}

/**
 * Finish marking: records the marks (and the feedback for the candidate) as the signed-in reviewer's and
 * completes the assignment through the marking service (final score,
 * `grading.done`, and its `marking.completed` audit entry), then drops
 * every reviewer's draft of it, in one transaction.
 */
export async function finishMarking(
  ctx: AppContext,
  input: { institutionId: string; assignmentId: string; markedBy: string; marks: DraftMark[]; feedback?: CandidateFeedbackInput; baseVersion: string },
  audit?: AuditContext,
): Promise<MarkingView> {
  return withTransaction(ctx.pool, async (tx) => {
    const view = await getMarkingView(tx, input.assignmentId, { institutionId: input.institutionId });
    if (view.status !== 'marking') throw new MarksChangedError();
    const details = checkDraftMarks(view, input.marks, true);
    if (details.length > 0) refuse(details);
    const done = await recordMarks(
      { ...ctx, pool: joinTransaction(tx) },
      input.assignmentId,
      {
        marks: input.marks.map((m) => ({
          questionId: m.questionId,
          ...(m.criteria
            ? { criteria: m.criteria.map((c) => ({ criterion: c.criterion, points: c.points!, ...(c.comment ? { comment: c.comment } : {}) })) }
            : { points: m.points! }),
          ...(m.comment ? { comment: m.comment } : {}),
        })),
        complete: true,
        markedBy: input.markedBy,
        expectedVersion: input.baseVersion,
        ...(input.feedback ? { feedback: input.feedback } : {}),
      },
      { institutionId: input.institutionId },
      audit,
    );
    await tx.query('DELETE FROM marking_drafts WHERE institution_id = $1 AND assignment_id = $2', [input.institutionId, input.assignmentId]);
    await tx.query('DELETE FROM marking_opens WHERE institution_id = $1 AND assignment_id = $2', [input.institutionId, input.assignmentId]);
    return done;
  });
}
