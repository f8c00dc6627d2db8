import { notFound } from '../../platform/errors.js';
import { readAll, withTransaction, type Pool, type Queryable } from '../../platform/db.js';
import { applyTransition } from '../lifecycle/apply-transition.js';
import { isPastDue } from '../lifecycle/state-machine.js';
import type { Score } from '../lifecycle/score.js';
import { proctoringSummary, proctoringSummaryAtHand, type PartnerProctoring, type SessionCountsRecord } from './proctoring-summary.js';
import type { Accommodations } from './accommodations.js';
import { findAssignmentById, type AssignmentRow } from './find-assignment.js';
import { readAssignment, type PartnerReadRow } from './assignments-repo.js';
import type { AssignmentsContext } from './context.js';
import type { LinkSigner } from './start-links.js';
import { releasedFeedback, type CandidateFeedback } from './candidate-feedback.js';

export interface AssignmentView {
  assignmentId: string;
  status: AssignmentRow['status'];
  externalUserId: string;
  testId: string;
  startUrl: string | null;
  startUrlExpiresAt: Date | null;
  /** reportUrl and feedback: only once the result is available (a signed link valid 15 minutes, report-links.ts); feedback only when some was written (candidate-feedback.ts). */
  result: { available: boolean; score: Score | null; reportUrl?: string; feedback?: CandidateFeedback };
  metadata: Record<string, unknown>;
  dueAt: Date | null;
  accommodations: Accommodations | null;
  /** The partner's `locale` as sent at creation, or null. */
  locale: string | null;
  createdAt: Date;
  startedAt: Date | null;
  submittedAt: Date | null;
  completedAt: Date | null;
  /** Null when the test is not proctored. */
  proctoring: PartnerProctoring | null;
  cancelledAt: Date | null;
}

/**
 * The lazy half of expiry: an `assigned` assignment past its dueAt is expired
 * right now, in its own transaction, before anyone is shown it. The scheduled
 * job does the same at dueAt; whichever runs first wins, the other is a no-op.
 */
export async function expireIfDue(pool: Pool, row: Pick<AssignmentRow, 'id' | 'status' | 'dueAt'>, now: Date): Promise<boolean> {
  if (!isPastDue(row, now)) return false;
  const outcome = await withTransaction(pool, (tx) => applyTransition(tx, row.id, [{ type: 'expire' }], now));
  return outcome.ok || outcome.status === 'expired';
}

/**
 * A view and the metadata's own text, which the route puts in place of the
 * object (key order kept): the object itself only where the row had it (a
 * whole row does; the partner read's row has the text alone).
 */
export type ViewOf<R extends PartnerReadRow> = Omit<AssignmentView, 'metadata'> & { metadata: R['metadata']; metadataJson: string };

/** The partner read's view: the metadata as text only. */
export type PartnerView = ViewOf<PartnerReadRow>;

/** The view, and the metadata's own text for the route to put in its place (key order kept). */
export async function getAssignment(
  ctx: AssignmentsContext,
  institutionId: string,
  assignmentId: string,
  livemode?: boolean,
): Promise<PartnerView> {
  const now = ctx.clock.now();
  // One round trip: the row and its proctoring counts together.
  let found = await readAssignment(ctx.pool, institutionId, assignmentId, livemode);
  if (!found) throw notFound('assignment');
  if (isPastDue(found.row, now) && (await expireIfDue(ctx.pool, found.row, now))) found = (await readAssignment(ctx.pool, institutionId, assignmentId, livemode))!;
  return assignmentViewAtHand(ctx.signer, found.row, now, found.proctoringCounts) ?? (await assignmentView(ctx.pool, ctx.signer, found.row, now, found.proctoringCounts));
}

/**
 * The view without a promise, when all it needs is at hand: the usual partner read, whose row came with
 * its proctoring counts, whose test version this process holds, and which has no feedback before completion.
 * Undefined otherwise, for assignmentView to look up what is missing.
 */
function assignmentViewAtHand<R extends PartnerReadRow>(signer: LinkSigner, row: R, now: Date, proctoringCounts?: SessionCountsRecord): ViewOf<R> | undefined {
  const atHand = proctoringCounts && row.status !== 'completed' ? proctoringSummaryAtHand(row.testVersionId, proctoringCounts) : undefined;
  return atHand === undefined ? undefined : viewOf(signer, row, now, atHand, null);
}

/** The read response of a row: a freshly signed start link while it can be used, and the proctoring summary. */
export async function assignmentView<R extends PartnerReadRow>(
  db: Queryable,
  signer: LinkSigner,
  /** The partner read's row, or a whole one (AssignmentRow has every field it needs). */
  row: R,
  now: Date,
  proctoringCounts?: SessionCountsRecord,
): Promise<ViewOf<R>> {
  const [proctoring, feedback] = await readAll(db, [
    () => proctoringSummary(db, row.institutionId, row.id, row.testVersionId, proctoringCounts),
    // Released with the result only: a completed assignment's one extra lookup by primary key.
    () => releasedFeedback(db, row),
  ] as const);
  return viewOf(signer, row, now, proctoring, feedback);
}

function viewOf<R extends PartnerReadRow>(signer: LinkSigner, row: R, now: Date, proctoring: PartnerProctoring | null, feedback: CandidateFeedback | null): ViewOf<R> {
  let startUrl: string | null = null;
  let startUrlExpiresAt: Date | null = null;
  if (row.status === 'assigned' || row.status === 'started') {
    startUrlExpiresAt = signer.expiryFor(now, row.status === 'assigned' ? row.dueAt : null);
    startUrl = signer.issue(row.id, row.linkVersion, startUrlExpiresAt).url;
  }
  return {
    assignmentId: row.id,
    status: row.status,
    externalUserId: row.externalUserId,
    testId: row.testId,
    startUrl,
    startUrlExpiresAt,
    result:
      row.status === 'completed'
        ? { available: true, score: row.score, reportUrl: signer.report.issue(row.id, signer.report.expiryFor(now)), ...(feedback ? { feedback } : {}) }
        : { available: false, score: row.score },
    metadata: row.metadata,
    metadataJson: row.metadataJson,
    dueAt: row.dueAt,
    accommodations: row.accommodations,
    locale: row.locale,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    submittedAt: row.submittedAt,
    completedAt: row.completedAt,
    proctoring,
    cancelledAt: row.cancelledAt,
  };
}

/** Runs `assignment.expire` (see expire-job.ts), scheduled at dueAt when the assignment is created. */
export async function runExpireJob(pool: Pool, assignmentId: string, now: Date): Promise<void> {
  const row = await findAssignmentById(pool, assignmentId);
  if (row) await expireIfDue(pool, row, now);
}
