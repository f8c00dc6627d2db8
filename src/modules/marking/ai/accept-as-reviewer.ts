import type { AppContext } from '../../../platform/context.js';
import { joinTransaction, withTransaction } from '../../../platform/db.js';
import { lockAttempt } from '../../attempts/find-attempt.js';
import { auditIn, type AuditContext } from '../../staff/audit.js';
import type { MarkingView } from '../get-marking-view.js';
import { listMarks } from '../marks-repo.js';
import { MarksChangedError, marksVersion } from '../marks-version.js';
import { acceptAiSuggestions } from './accept-ai-suggestions.js';

/**
 * A signed-in reviewer accepts every AI suggestion of a submission (the
 * portal's "Accept AI suggestions"): acceptAiSuggestions with the reviewer as
 * `markedBy`, based on the marks version their page showed (a stale page is
 * refused with MarksChangedError, never applied). When every item awaiting a
 * reviewer has a suggestion, marking finishes (`grading.done`) and, as with
 * finishMarking, every reviewer's draft and presence of it is dropped; else
 * the accepted items are marked and the rest still wait. One transaction,
 * with its audit entry.
 */
export async function acceptAiSuggestionsAsReviewer(
  ctx: AppContext,
  input: { institutionId: string; assignmentId: string; markedBy: string; baseVersion: string; complete: boolean },
  audit: AuditContext,
): Promise<MarkingView> {
  return withTransaction(ctx.pool, async (tx) => {
    await lockAttempt(tx, input.assignmentId, 'update', { institutionId: input.institutionId });
    if (marksVersion(await listMarks(tx, input.institutionId, input.assignmentId)) !== input.baseVersion) throw new MarksChangedError();
    const view = await acceptAiSuggestions({ ...ctx, pool: joinTransaction(tx) }, input.assignmentId, { complete: input.complete, markedBy: input.markedBy }, { institutionId: input.institutionId });
    const accepted = view.items.filter((i) => i.ai?.status === 'suggested' && i.mark?.markedBy === input.markedBy).map((i) => i.questionId);
    await auditIn(tx, audit, {
      action: 'marking.ai_suggestions_accepted',
      objectType: 'assignment',
      objectId: input.assignmentId,
      institutionId: input.institutionId,
      details: { questionIds: accepted, completed: view.status === 'completed' },
    });
    if (view.status !== 'marking') {
      await tx.query('DELETE FROM marking_drafts WHERE institution_id = $1 AND assignment_id = $2', [input.institutionId, input.assignmentId]);
      await tx.query('DELETE FROM marking_opens WHERE institution_id = $1 AND assignment_id = $2', [input.institutionId, input.assignmentId]);
    }
    return view;
  });
}
