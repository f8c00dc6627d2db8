import type { AssignmentsContext } from '../assignments/context.js';
import { findAssignmentById, type AssignmentRow } from '../assignments/find-assignment.js';
import { expireIfDue } from '../assignments/get-assignment.js';
import { getInstitution } from '../institutions/institutions.js';
import type { AssignmentStatus } from '../lifecycle/state-machine.js';
import { returnUrl } from './return-url.js';
import { createSessionForLink } from '../assignments/student-sessions.js';

/** What the pages for a known assignment need: its partner, the way back, test mode, and the candidate's language (docs/languages.md). */
interface KnownAssignment {
  institutionName: string;
  returnUrl: string;
  testMode: boolean;
  /** The partner's `locale` for the assignment, or null. */
  locale: string | null;
  /** The candidate's own choice on the Language menu, or null. */
  candidateLocale: string | null;
}

export type OpenedLink =
  | { kind: 'signed_in'; assignmentId: string; sessionId: string }
  | { kind: 'invalid' }
  /** The token was genuine but is past its expiry. */
  | (KnownAssignment & { kind: 'link_expired'; status: AssignmentStatus })
  /** The link is out of date because the assignment itself expired (not begun by dueAt). */
  | (KnownAssignment & { kind: 'assignment_expired'; dueAt: Date | null })
  /** The institution cancelled the assignment. */
  | (KnownAssignment & { kind: 'withdrawn' });

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
    const known: KnownAssignment = { institutionName, returnUrl: back, testMode: !row.livemode, locale: row.locale, candidateLocale: row.candidateLocale };
    // Object.assign, not a spread given new keys, which makes new hidden classes per call (docs/performance.md).
    if (row.status === 'cancelled') return Object.assign({}, known, { kind: 'withdrawn' as const });
    if (row.status === 'expired') return Object.assign({}, known, { kind: 'assignment_expired' as const, dueAt: row.dueAt });
    return Object.assign({}, known, { kind: 'link_expired' as const, status: row.status });
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
