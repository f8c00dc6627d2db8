import { sha256Hex } from '../../platform/crypto.js';
import type { Queryable } from '../../platform/db.js';

/**
 * Sign-in attempt limits, counted in PostgreSQL so every API process shares
 * them: per address 5 and per IP address 50 link requests in a fixed window
 * of 15 minutes (an IP is often a whole campus behind one NAT, hence the
 * larger figure). Counted whether or not the address has an account, so a
 * refusal reveals nothing either.
 */
export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
export const PER_ADDRESS_LIMIT = 5;
export const PER_IP_LIMIT = 50;

export type ThrottleResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Counts one attempt in the bucket and says whether it is within `limit`. */
async function take(db: Queryable, bucket: string, limit: number, now: Date): Promise<ThrottleResult> {
  const { rows } = await db.query<{ attempts: number; window_start: Date }>(
    `INSERT INTO sign_in_throttle AS t (bucket, window_start, attempts) VALUES ($1, $2, 1)
     ON CONFLICT (bucket) DO UPDATE SET
       attempts     = CASE WHEN t.window_start <= $2::timestamptz - make_interval(secs => $3::double precision / 1000) THEN 1 ELSE t.attempts + 1 END,
       window_start = CASE WHEN t.window_start <= $2::timestamptz - make_interval(secs => $3::double precision / 1000) THEN $2 ELSE t.window_start END
     RETURNING attempts, window_start`,
    [bucket, now, THROTTLE_WINDOW_MS],
  );
  const r = rows[0]!;
  if (r.attempts <= limit) return { allowed: true };
  const retryAfterSeconds = Math.max(1, Math.ceil((r.window_start.getTime() + THROTTLE_WINDOW_MS - now.getTime()) / 1000));
  return { allowed: false, retryAfterSeconds };
}

/** One sign-in link request from `ip` for `email` (already lower-cased). */
export async function takeSignInAttempt(db: Queryable, input: { email: string; ip: string; now: Date }): Promise<ThrottleResult> {
  const byIp = await take(db, `ip:${input.ip}`, PER_IP_LIMIT, input.now);
  const byAddress = await take(db, `email:${sha256Hex(input.email)}`, PER_ADDRESS_LIMIT, input.now);
  if (!byIp.allowed && !byAddress.allowed) return { allowed: false, retryAfterSeconds: Math.max(byIp.retryAfterSeconds, byAddress.retryAfterSeconds) };
  return byIp.allowed ? byAddress : byIp;
}

export async function purgeSignInThrottle(db: Queryable, now: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM sign_in_throttle WHERE window_start <= $1', [new Date(now.getTime() - THROTTLE_WINDOW_MS)]);
  return rowCount ?? 0;
}

/** An IP-only limit for other signed-out entry points (passkey sign-in options), in its own bucket. */
export async function takeIpAttempt(db: Queryable, input: { ip: string; now: Date; kind: 'passkey' }): Promise<ThrottleResult> {
  return take(db, `${input.kind}-ip:${input.ip}`, PER_IP_LIMIT, input.now);
}
