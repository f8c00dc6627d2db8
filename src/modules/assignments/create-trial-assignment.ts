import { newId } from '../../platform/ids.js';
import type { AssignmentsContext } from './context.js';
import { insertAssignmentForUser } from './assignments-repo.js';
import { trialUserId } from './trial-runs.js';

/**
 * The test-mode assignment behind the editor's **Try it**
 * (docs/authoring.md "Try it"): the staff member as a test-mode user of the
 * test's institution (`portal-try:<staffId>`), the trial version pinned, the
 * return button back to the editor. Nothing live is touched: it is test-mode
 * data like a test key's (invisible to live keys and live lists, removed by
 * wiping test data). Returns the start link to open.
 */
export async function createTrialAssignment(
  ctx: AssignmentsContext,
  input: { institutionId: string; testId: string; testVersionId: string; staff: { staffId: string; email: string; name: string | null }; returnUrl: string },
): Promise<string> {
  const now = ctx.clock.now();
  const assignmentId = newId('asg');
  await insertAssignmentForUser(ctx.pool, {
    id: assignmentId,
    institutionId: input.institutionId,
    user: { id: newId('usr'), externalUserId: trialUserId(input.staff.staffId), email: input.staff.email, name: input.staff.name },
    testId: input.testId,
    testVersionId: input.testVersionId,
    callbackUrl: input.returnUrl,
    dueAt: null,
    metadataJson: '{"tryIt":true}',
    accommodations: null,
    // The staff member's own browser languages choose the trial's language.
    locale: null,
    livemode: false,
    now,
  });
  // Flagged as a trial (migration 0026): its lifecycle writes no event, so no webhook is sent and
  // GET /events never shows it, and the assignment listings and exports leave it out.
  await ctx.pool.query('UPDATE assignments SET trial = true WHERE id = $1 AND NOT livemode', [assignmentId]);
  return ctx.signer.issueOnce(assignmentId, 1, ctx.signer.expiryFor(now, null)).url;
}
