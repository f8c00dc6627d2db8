import { withTransaction } from '../../platform/db.js';
import { endSessionsOpenedBefore } from '../assignments/student-sessions.js';
import { transition } from '../lifecycle/state-machine.js';
import type { Principal } from '../../platform/principal.js';
import { bumpLinkVersion } from '../assignments/assignment-fields.js';
import { findAssignmentById, lockAssignmentRow } from '../assignments/find-assignment.js';
import { findForChange, invalidState } from './change-lock.js';
import type { AssignmentsContext } from '../assignments/context.js';
import { assignmentView, type AssignmentView } from '../assignments/get-assignment.js';

/**
 * POST /assignments/{id}/start-link: for a link sent to the wrong person.
 * Moves the link version on (every link issued before opens the "link not
 * valid" page) and ends the student sessions those links opened, since
 * whoever opened the stray link may be signed in. The student who should
 * take the test opens the new link and resumes where they were: answers and
 * time live on the server, not in the session. Only while `assigned` or
 * `started` (409 invalid_state otherwise). No event: the status is unchanged.
 */
export async function reissueStartLink(ctx: AssignmentsContext, scope: Principal, assignmentId: string): Promise<AssignmentView> {
  const now = ctx.clock.now();
  const found = await findForChange(ctx.pool, scope, assignmentId, now);
  await withTransaction(ctx.pool, async (tx) => {
    const row = await lockAssignmentRow(tx, found.institutionId, found.id);
    if (!row) throw new Error(`reissue ${found.id}: the row vanished`);
    if (!transition({ status: row.status, dueAt: row.dueAt }, { type: 'reissue_link' }, now).ok) throw invalidState(row.status, 'given a new start link');
    const version = await bumpLinkVersion(tx, row.institutionId, row.id);
    await endSessionsOpenedBefore(tx, row.institutionId, row.id, version);
  });
  return assignmentView(ctx.pool, ctx.signer, (await findAssignmentById(ctx.pool, found.id))!, now);
}
