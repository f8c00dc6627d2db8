import type { Queryable } from '../../platform/db.js';
import { purgePortalSessions } from './portal-sessions.js';
import { purgeSignInLinks } from './sign-in-links.js';
import { purgeSignInThrottle } from './sign-in-throttle.js';

/** The hourly purge of ended portal sessions, old sign-in links, spent rate-limit windows and stale passkey challenges. */
export async function purgeStaffSignIns(db: Queryable, now: Date): Promise<void> {
  await purgePortalSessions(db, now);
  await purgeSignInLinks(db, now);
  await purgeSignInThrottle(db, now);
  await db.query('DELETE FROM webauthn_challenges WHERE expires_at <= $1', [now]);
}
