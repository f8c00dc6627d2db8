import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db.js';
import { recordAudit } from './audit.js';
import { endPortalSession } from './portal-sessions.js';
import type { StaffPrincipal } from './principal.js';

/** Ends this browser's session and records the sign-out; nothing to do (or record) when it had already ended. */
export async function signOut(ctx: AppContext, sessionId: string | undefined, p: StaffPrincipal | null, ip: string | null): Promise<void> {
  await withTransaction(ctx.pool, async (tx) => {
    const ended = await endPortalSession(tx, sessionId);
    if (!ended || !p) return;
    await recordAudit(tx, {
      actor: { kind: 'staff', staffId: p.staffId, email: p.email },
      ip,
      action: 'staff.signed_out',
      objectType: 'staff',
      objectId: p.staffId,
      institutionId: p.institutionId,
    });
  });
}
