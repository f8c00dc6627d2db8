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
 *
 * A session remembers the start link (assignment and link version) that
 * opened it: reissuing the link ends the sessions the old one opened, since
 * a link sent to the wrong person may have let the wrong person in.
 */
export const SESSION_COOKIE = 'assay_session';
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
const TOUCH_AFTER_MS = 5 * 60 * 1000;

export interface StudentSession {
  /** The session row's key (SHA-256 of the cookie value), for statements that re-check the session themselves. */
  idHash: string;
  institutionId: string;
  userId: string;
  csrfToken: string;
  expiresAt: Date;
}

/**
 * Opening a start link of `linkVersion` creates a session for the
 * assignment's user, only while that is still the assignment's link version. The share lock on the assignment
 * orders it with a reissue (which updates the row): either the reissue waits
 * and then ends this session, or this insert waits and then finds the
 * version moved on (null: the link was revoked).
 */
export async function createSessionForLink(
  db: Queryable,
  input: { institutionId: string; userId: string; assignmentId: string; linkVersion: number; now: Date },
): Promise<{ sessionId: string } | null> {
  const sessionId = randomBase62(43);
  const expiresAt = new Date(input.now.getTime() + SESSION_IDLE_MS);
  const { rowCount } = await db.query(
    `INSERT INTO student_sessions (id_hash, institution_id, user_id, csrf_token, created_at, last_seen_at, expires_at, assignment_id, link_version)
     SELECT $1, $2, $3, $4, $5, $5, $6, a.id, a.link_version FROM assignments a
      WHERE a.id = $7 AND a.institution_id = $2 AND a.link_version = $8 FOR SHARE`,
    [sha256Hex(sessionId), input.institutionId, input.userId, randomBase62(32), input.now, expiresAt, input.assignmentId, input.linkVersion],
  );
  return rowCount === 1 ? { sessionId } : null;
}

/** Ends the sessions opened by the assignment's start links older than `linkVersion`. */
export async function endSessionsOpenedBefore(db: Queryable, institutionId: string, assignmentId: string, linkVersion: number): Promise<number> {
  const { rowCount } = await db.query(
    'DELETE FROM student_sessions WHERE assignment_id = $1 AND institution_id = $2 AND link_version < $3',
    [assignmentId, institutionId, linkVersion],
  );
  return rowCount ?? 0;
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
  let lastSeenAt: Date = r.last_seen_at;
  if (now.getTime() - r.last_seen_at.getTime() > TOUCH_AFTER_MS) {
    expiresAt = new Date(now.getTime() + SESSION_IDLE_MS);
    lastSeenAt = now;
    await db.query('UPDATE student_sessions SET last_seen_at = $2, expires_at = $3 WHERE id_hash = $1', [idHash, now, expiresAt]);
  }
  const session = { idHash, institutionId: r.institution_id, userId: r.user_id, csrfToken: r.csrf_token, expiresAt };
  remember(sessionId, session, lastSeenAt);
  return session;
}

/**
 * Which of these sessions still stand (not ended by a new start link, not
 * expired), in one statement: the status streams' periodic re-check, which
 * reads without refreshing the sliding expiry (a stream is not the student
 * at work; their saves and page loads refresh it).
 */
export async function standingSessions(db: Queryable, idHashes: string[], now: Date): Promise<Set<string>> {
  const { rows } = await db.query<{ id_hash: string }>('SELECT id_hash FROM student_sessions WHERE id_hash = ANY($1) AND expires_at > $2', [idHashes, now]);
  return new Set(rows.map((r) => r.id_hash));
}

/**
 * Sessions this process looked up lately, by cookie value, for the one
 * route whose statement checks the session again itself: the autosave (see
 * saveAnswersInOneStatement). A save then needs no session query and no
 * hash: the cached row gives the user and the CSRF token, and the save
 * statement writes only if the session row still exists, unexpired, for the
 * attempt's user. So a session ended elsewhere (a new start link, another
 * process) never saves from this cache. An entry is used until the session
 * is due its sliding refresh (five minutes), then the database is asked
 * again, which refreshes it as before. Every other route reads the database.
 */
const MAX_RECENT = 20_000;
const recent = new Map<string, { session: StudentSession; lastSeenAt: number }>();

function remember(sessionId: string, session: StudentSession, lastSeenAt: Date): void {
  recent.delete(sessionId);
  if (recent.size >= MAX_RECENT) recent.delete(recent.keys().next().value!);
  recent.set(sessionId, { session, lastSeenAt: lastSeenAt.getTime() });
}

/** The session from this process's recent ones, when one may serve (see above); undefined means ask findSession. */
export function recentSession(sessionId: string | undefined, now: Date): StudentSession | undefined {
  const hit = sessionId ? recent.get(sessionId) : undefined;
  const t = now.getTime();
  if (hit && t < hit.session.expiresAt.getTime() && t - hit.lastSeenAt <= TOUCH_AFTER_MS && t >= hit.lastSeenAt) return hit.session;
  return undefined;
}

/** Drops a session from the recent ones (its statement found it ended). */
export function forgetRecentSession(idHash: string): void {
  for (const [key, entry] of recent) {
    if (entry.session.idHash === idHash) recent.delete(key);
  }
}

/** Whether the session row still exists and has not expired. */
export async function sessionIsLive(db: Queryable, idHash: string, now: Date): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM student_sessions WHERE id_hash = $1 AND expires_at > $2', [idHash, now]);
  return rowCount === 1;
}

export function csrfMatches(session: StudentSession, token: string | undefined): boolean {
  return typeof token === 'string' && safeEqual(token, session.csrfToken);
}

export async function purgeExpiredSessions(db: Queryable, now: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM student_sessions WHERE expires_at <= $1', [now]);
  return rowCount ?? 0;
}
