import type { AssignmentsContext } from '../assignments/context.js';
import { findAssignmentById, type AssignmentRow } from '../assignments/find-assignment.js';
import { expireIfDue } from '../assignments/get-assignment.js';
import { getInstitution } from '../institutions/institutions.js';
import type { AssignmentStatus } from '../lifecycle/state-machine.js';
import { returnUrl } from './return-url.js';
import { createSessionForLink } from '../assignments/student-sessions.js';

export type OpenedLink =
  | { kind: 'signed_in'; assignmentId: string; sessionId: string }
  | { kind: 'invalid' }
  /** The token was genuine but is past its expiry. */
  | { kind: 'link_expired'; institutionName: string; status: AssignmentStatus; returnUrl: string; testMode: boolean }
  /** The link is out of date because the assignment itself expired (not begun by dueAt). */
  | { kind: 'assignment_expired'; institutionName: string; dueAt: Date | null; returnUrl: string; testMode: boolean }
  /** The institution cancelled the assignment. */
  | { kind: 'withdrawn'; institutionName: string; returnUrl: string; testMode: boolean };

/**
 * GET /s/{token}: verify signature, expiry and link version; sign the
 * student in with a new server-side session for the assignment's user.
 * It never changes the status (mail scanners fetch links), except the lazy
 * expiry that every read applies: an `assigned` assignment past dueAt expires.
 */
export async function openStartLink(ctx: AssignmentsContext, token: string): Promise<OpenedLink> {
  const now = ctx.clock.now();
  const verified = ctx.signer.verify(token, now);
  if (!verified.ok && verified.reason === 'invalid') return { kind: 'invalid' };

  let row: AssignmentRow | null = await findAssignmentById(ctx.pool, verified.assignmentId);
  // A link of an earlier version was revoked when the version moved on.
  if (!row || row.linkVersion !== verified.linkVersion) return { kind: 'invalid' };
  if (await expireIfDue(ctx.pool, row, now)) row = (await findAssignmentById(ctx.pool, row.id))!;

  if (!verified.ok || row.status === 'cancelled') {
    const institutionName = (await getInstitution(ctx.pool, row.institutionId))?.name ?? '';
    const back = returnUrl(row.callbackUrl, { assignmentId: row.id, externalUserId: row.externalUserId, status: row.status });
    // The pages for these know the assignment: a test-mode one says so.
    const testMode = !row.livemode;
    if (row.status === 'cancelled') return { kind: 'withdrawn', institutionName, returnUrl: back, testMode };
    if (row.status === 'expired') return { kind: 'assignment_expired', institutionName, dueAt: row.dueAt, returnUrl: back, testMode };
    return { kind: 'link_expired', institutionName, status: row.status, returnUrl: back, testMode };
  }
  const session = await createSessionForLink(ctx.pool, {
    institutionId: row.institutionId,
    userId: row.userId,
    assignmentId: row.id,
    linkVersion: verified.linkVersion,
    now,
  });
  // The link was revoked between the check above and now.
  if (!session) return { kind: 'invalid' };
  return { kind: 'signed_in', assignmentId: row.id, sessionId: session.sessionId };
}
