import { safeEqual, sha256Hex } from '../../platform/crypto.js';
import type { Queryable } from '../../platform/db.js';
import { randomBase62 } from '../../platform/ids.js';

/**
 * Student sessions, server-side in PostgreSQL. Opening a start link creates
 * one for the assignment's user; the cookie carries a random id of ~256 bits
 * and the table only its SHA-256, so neither a log line nor a database read
 * yields a usable session. A session reaches the assignments of its own user
 * (one institution, one externalUserId) and nothing else.
 *
 * Lifetime: 12 hours after last use (sliding; refreshed at most every five
 * minutes to keep autosaves to one write). Re-opening the start link gives
 * a new session, so a student who walks away only needs their link again.
 * Every state-changing request must also carry the session's CSRF token
 * (a hidden form field or the X-CSRF-Token header), compared in constant time.
 */
export const SESSION_COOKIE = 'assay_session';
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
const TOUCH_AFTER_MS = 5 * 60 * 1000;

export interface StudentSession {
  institutionId: string;
  userId: string;
  csrfToken: string;
  expiresAt: Date;
}

export async function createSession(
  db: Queryable,
  input: { institutionId: string; userId: string; now: Date },
): Promise<{ sessionId: string; session: StudentSession }> {
  const sessionId = randomBase62(43);
  const csrfToken = randomBase62(32);
  const expiresAt = new Date(input.now.getTime() + SESSION_IDLE_MS);
  await db.query(
    `INSERT INTO student_sessions (id_hash, institution_id, user_id, csrf_token, created_at, last_seen_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $5, $6)`,
    [sha256Hex(sessionId), input.institutionId, input.userId, csrfToken, input.now, expiresAt],
  );
  return { sessionId, session: { institutionId: input.institutionId, userId: input.userId, csrfToken, expiresAt } };
}

/** The live session for a cookie value, or null (unknown, expired, or malformed). */
export async function findSession(db: Queryable, sessionId: string | undefined, now: Date): Promise<StudentSession | null> {
  if (!sessionId || !/^[0-9A-Za-z]{43}$/.test(sessionId)) return null;
  const idHash = sha256Hex(sessionId);
  const { rows } = await db.query(
    'SELECT institution_id, user_id, csrf_token, last_seen_at, expires_at FROM student_sessions WHERE id_hash = $1 AND expires_at > $2',
    [idHash, now],
  );
  const r = rows[0];
  if (!r) return null;
  let expiresAt: Date = r.expires_at;
  if (now.getTime() - r.last_seen_at.getTime() > TOUCH_AFTER_MS) {
    expiresAt = new Date(now.getTime() + SESSION_IDLE_MS);
    await db.query('UPDATE student_sessions SET last_seen_at = $2, expires_at = $3 WHERE id_hash = $1', [idHash, now, expiresAt]);
  }
  return { institutionId: r.institution_id, userId: r.user_id, csrfToken: r.csrf_token, expiresAt };
}

export function csrfMatches(session: StudentSession, token: string | undefined): boolean {
  return typeof token === 'string' && safeEqual(token, session.csrfToken);
}

export async function purgeExpiredSessions(db: Queryable, now: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM student_sessions WHERE expires_at <= $1', [now]);
  return rowCount ?? 0;
}
