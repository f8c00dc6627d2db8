import type { Tx } from '../../platform/db.js';
import { recordAudit } from './audit.js';
import { createPortalSession, endPortalSession, type SignInMethod } from './portal-sessions.js';
import { touchLastSignIn } from './staff-repo.js';

/**
 * What every way of signing in does once it has proved who the staff member
 * is (a mail link consumed, a passkey verified), in the caller's transaction:
 * ends this browser's previous session (signing in again, maybe as someone
 * else), opens a portal session, notes the sign-in on the account and records
 * it in the audit log. Returns the new session's id, for the cookie.
 */
export async function finishSignIn(
  tx: Tx,
  input: {
    staff: { id: string; email: string; institutionId: string | null };
    method: SignInMethod;
    /** Added to the audit entry's details after `method` (the passkey's credential id). */
    details?: Record<string, unknown>;
    ip: string | null;
    previousSessionId: string | undefined;
    now: Date;
  },
): Promise<string> {
  const { staff, method, now } = input;
  await endPortalSession(tx, input.previousSessionId);
  const { sessionId } = await createPortalSession(tx, { staffId: staff.id, method, now });
  await touchLastSignIn(tx, staff.id, now);
  await recordAudit(tx, {
    actor: { kind: 'staff', staffId: staff.id, email: staff.email },
    ip: input.ip,
    action: 'staff.signed_in',
    objectType: 'staff',
    objectId: staff.id,
    institutionId: staff.institutionId,
    details: { method, ...input.details },
  });
  return sessionId;
}
