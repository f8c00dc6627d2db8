import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db.js';
import { AppError, notFound, type ErrorDetail } from '../../platform/errors.js';
import { findAssignment } from '../assignments/find-assignment.js';
import { isSubmittedStatus } from '../lifecycle/state-machine.js';
import { recordIntegrityReviewed } from './record-violation.js';
import { getProctoringReport, institutionOfAssignment, type ProctoringReport } from './get-proctoring-report.js';
import * as repo from './proctoring-repo.js';
import type { ReviewOutcome } from './rules.js';

/**
 * A reviewer's decisions on an attempt's critical flags: each `confirmed` or
 * `dismissed`, with a note. Proctoring never changes a status or a score by
 * itself; this records the human judgement and tells the partner.
 *
 * - Only after submission: the flag set is final then (no heartbeat, sweep or
 *   upload adds a critical flag to a submitted attempt), so "every critical
 *   flag reviewed" happens once.
 * - A decision is final: reviewing a reviewed flag again with the same
 *   outcome and note is a harmless repeat, with another outcome 409.
 * - When the last unreviewed critical flag is decided, `integrity.reviewed`
 *   is appended in the same transaction with the counts, once per attempt.
 * All reviews of a request are checked first; one bad review refuses the
 * request and changes nothing.
 */
export interface ReviewInput {
  reviews: Array<{ flagId: string; outcome: ReviewOutcome; note: string }>;
  /** Who decided, from the caller's principal (the operator API records "operator" unless told a name). */
  reviewer: string;
}

export async function reviewFlags(ctx: AppContext, institutionId: string, assignmentId: string, input: ReviewInput): Promise<ProctoringReport> {
  const row = await findAssignment(ctx.pool, institutionId, assignmentId);
  if (!row) throw notFound('assignment');
  if (!isSubmittedStatus(row.status)) {
    throw new AppError('invalid_state', `Flags are reviewed after the attempt is submitted; this assignment is ${row.status}.`);
  }
  const now = ctx.clock.now();
  await withTransaction(ctx.pool, async (tx) => {
    const session = await repo.lockSession(tx, institutionId, assignmentId, now);
    const flags = await repo.flagsById(tx, institutionId, assignmentId, input.reviews.map((r) => r.flagId));
    const details: ErrorDetail[] = [];
    const seen = new Set<string>();
    const toSave: ReviewInput['reviews'] = [];
    input.reviews.forEach((r, i) => {
      const field = `reviews.${i}.flagId`;
      const flag = flags.get(r.flagId);
      if (seen.has(r.flagId)) return details.push({ field, message: 'appears twice' });
      seen.add(r.flagId);
      if (!flag) return details.push({ field, message: 'is not a flag of this assignment' });
      if (flag.severity !== 'critical') return details.push({ field, message: `is a ${flag.severity} flag: only critical flags are reviewed` });
      if (flag.reviewOutcome === null) return toSave.push(r);
      if (flag.reviewOutcome !== r.outcome || flag.reviewNote !== r.note) {
        throw new AppError('invalid_state', `Flag ${flag.id} was already reviewed (${flag.reviewOutcome}); a review is final.`);
      }
    });
    if (details.length > 0) throw new AppError('invalid_request', `${details[0]!.field}: ${details[0]!.message}`, details);

    for (const r of toSave) await repo.saveReview(tx, institutionId, r.flagId, { outcome: r.outcome, note: r.note, reviewer: input.reviewer, now });
    const summary = await repo.refreshSummary(tx, institutionId, assignmentId);
    if (summary.critical > 0 && summary.criticalUnreviewed === 0 && !session.reviewedAt) {
      const outcome = await recordIntegrityReviewed(tx, assignmentId, { confirmed: summary.confirmed, dismissed: summary.dismissed }, now);
      if (!outcome.ok) throw new Error(`integrity.reviewed refused for ${assignmentId}: ${outcome.reason}`);
      await repo.markReviewed(tx, assignmentId, now);
    }
  });
  return getProctoringReport(ctx, institutionId, assignmentId);
}

export async function reviewFlagsAsOperator(ctx: AppContext, assignmentId: string, input: ReviewInput): Promise<ProctoringReport> {
  return reviewFlags(ctx, await institutionOfAssignment(ctx, assignmentId), assignmentId, input);
}
