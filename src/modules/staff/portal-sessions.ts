import { sha256Hex } from '../../platform/crypto.js';
import type { Queryable } from '../../platform/db.js';
import { randomBase62 } from '../../platform/ids.js';
import type { StaffPrincipal } from './principal.js';

/**
 * Portal sessions, server-side in PostgreSQL. The cookie carries a random id
 * of ~256 bits and the table only its SHA-256, so neither a log line nor a
 * database read yields a usable session.
 *
 * A session ends 30 minutes after its last request (idle) and 12 hours after
 * sign-in (absolute), whichever comes first, or at sign-out; removing a
 * staff account ends its sessions at once, and a role change applies to the
 * next request (the role is read with the session, never cached in it).
 */
export const PORTAL_COOKIE = 'assay_portal';
export const SESSION_IDLE_MS = 30 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60 * 1000;

export type SignInMethod = 'link' | 'passkey';

export async function createPortalSession(
  db: Queryable,
  input: { staffId: string; method: SignInMethod; now: Date },
): Promise<{ sessionId: string; csrf: string }> {
  const sessionId = randomBase62(43);
  const csrf = randomBase62(32);
  await db.query(
    `INSERT INTO portal_sessions (id_hash, staff_id, csrf_token, created_at, last_seen_at, expires_at, method)
     VALUES ($1, $2, $3, $4, $4, $5, $6)`,
    [sha256Hex(sessionId), input.staffId, csrf, input.now, new Date(input.now.getTime() + SESSION_ABSOLUTE_MS), input.method],
  );
  return { sessionId, csrf };
}

export function looksLikeSessionId(value: string | undefined): value is string {
  return typeof value === 'string' && /^[0-9A-Za-z]{43}$/.test(value);
}

/**
 * The staff member behind a live session, refreshing its idle clock in the
 * same statement; null when unknown, idle too long, past its absolute end,
 * or its account was removed.
 */
export async function resolvePortalSession(db: Queryable, sessionId: string | undefined, now: Date): Promise<StaffPrincipal | null> {
  if (!looksLikeSessionId(sessionId)) return null;
  const { rows } = await db.query({
    name: 'resolve-portal-session',
    text: `UPDATE portal_sessions s SET last_seen_at = $2
             FROM staff st LEFT JOIN institutions i ON i.id = st.institution_id
            WHERE s.id_hash = $1 AND st.id = s.staff_id AND st.removed_at IS NULL
              AND s.last_seen_at > $2::timestamptz - make_interval(secs => $3::double precision / 1000)
              AND s.expires_at > $2
        RETURNING st.id, st.email, st.name, st.role, st.institution_id, i.name AS institution_name, s.csrf_token`,
    values: [sha256Hex(sessionId), now, SESSION_IDLE_MS],
  });
  const r = rows[0];
  if (!r) return null;
  return {
    kind: 'staff',
    staffId: r.id,
    email: r.email,
    name: r.name,
    role: r.role,
    institutionId: r.institution_id,
    institutionName: r.institution_name,
    sessionCsrf: r.csrf_token,
  };
}

/** Ends the session with this cookie value (sign-out); true when there was one. */
export async function endPortalSession(db: Queryable, sessionId: string | undefined): Promise<boolean> {
  if (!looksLikeSessionId(sessionId)) return false;
  const { rowCount } = await db.query('DELETE FROM portal_sessions WHERE id_hash = $1', [sha256Hex(sessionId)]);
  return (rowCount ?? 0) > 0;
}

export async function endStaffSessions(db: Queryable, staffId: string): Promise<void> {
  await db.query('DELETE FROM portal_sessions WHERE staff_id = $1', [staffId]);
}

/** Sessions past either limit; run by the worker's hourly purge. */
export async function purgePortalSessions(db: Queryable, now: Date): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM portal_sessions
      WHERE expires_at <= $1 OR last_seen_at <= $1::timestamptz - make_interval(secs => $2::double precision / 1000)`,
    [now, SESSION_IDLE_MS],
  );
  return rowCount ?? 0;
}
