import type { AppContext } from '../../platform/context.js';
import { sha256Hex } from '../../platform/crypto.js';
import { withTransaction, type Queryable } from '../../platform/db.js';
import { randomBase62 } from '../../platform/ids.js';
import { finishSignIn } from './finish-sign-in.js';

/**
 * One-time sign-in links: `/portal/sign-in/link/<token>`, ~256 random bits,
 * only the SHA-256 stored. Valid 15 minutes, single use. Opening the link
 * (GET) only shows a "Sign in" button; pressing it (POST) consumes the link,
 * so a mail scanner that follows links never uses one up.
 */
export const LINK_TTL_MS = 15 * 60 * 1000;
export const LINK_PATH = '/portal/sign-in/link/';

export function looksLikeLinkToken(token: string): boolean {
  return /^[0-9A-Za-z]{43}$/.test(token);
}

export function signInUrl(ctx: AppContext, token: string): string {
  return `${ctx.config.publicBaseUrl}${LINK_PATH}${token}`;
}

/** Creates a link for the account; the token is returned once, to be mailed (or printed by `npm start`). */
export async function issueSignInLink(
  db: Queryable,
  input: { staffId: string; next: string | null; now: Date },
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBase62(43);
  const expiresAt = new Date(input.now.getTime() + LINK_TTL_MS);
  await db.query(
    `INSERT INTO sign_in_links (token_hash, staff_id, next_path, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
    [sha256Hex(token), input.staffId, input.next, input.now, expiresAt],
  );
  return { token, expiresAt };
}

/** Withdraws links whose mail could not be sent (the job sends fresh ones on its next attempt). */
export async function deleteSignInLinks(db: Queryable, tokens: string[]): Promise<void> {
  if (tokens.length > 0) await db.query('DELETE FROM sign_in_links WHERE token_hash = ANY($1)', [tokens.map(sha256Hex)]);
}

export type LinkState = 'valid' | 'used' | 'expired' | 'unknown';

/** What the link is, without using it (the landing page's GET). */
export async function inspectSignInLink(db: Queryable, token: string, now: Date): Promise<LinkState> {
  if (!looksLikeLinkToken(token)) return 'unknown';
  const { rows } = await db.query(
    `SELECT l.consumed_at, l.expires_at, s.removed_at FROM sign_in_links l JOIN staff s ON s.id = l.staff_id WHERE l.token_hash = $1`,
    [sha256Hex(token)],
  );
  const r = rows[0];
  if (!r || r.removed_at) return 'unknown';
  if (r.consumed_at) return 'used';
  return r.expires_at > now ? 'valid' : 'expired';
}

export type ConsumeResult =
  | { ok: true; sessionId: string; next: string | null; staffId: string }
  | { ok: false; state: Exclude<LinkState, 'valid'> };

/**
 * Uses the link: marks it consumed (one statement, so two presses cannot
 * both succeed), opens a portal session, and records the sign-in, together.
 * `previousSessionId`: the browser's current session, ended in the same step.
 */
export async function consumeSignInLink(ctx: AppContext, token: string, ip: string | null, previousSessionId?: string): Promise<ConsumeResult> {
  if (!looksLikeLinkToken(token)) return { ok: false, state: 'unknown' };
  const now = ctx.clock.now();
  const hash = sha256Hex(token);
  return withTransaction(ctx.pool, async (tx) => {
    const { rows } = await tx.query(
      `UPDATE sign_in_links l SET consumed_at = $2
         FROM staff s
        WHERE l.token_hash = $1 AND s.id = l.staff_id AND s.removed_at IS NULL
          AND l.consumed_at IS NULL AND l.expires_at > $2
      RETURNING s.id, s.email, s.institution_id, l.next_path`,
      [hash, now],
    );
    const r = rows[0];
    if (!r) {
      const state = await inspectSignInLink(tx, token, now);
      return { ok: false, state: state === 'valid' ? 'used' : state };
    }
    const staff = { id: r.id, email: r.email, institutionId: r.institution_id };
    const sessionId = await finishSignIn(tx, { staff, method: 'link', ip, previousSessionId, now });
    return { ok: true, sessionId, next: r.next_path, staffId: r.id };
  });
}

/** Kept a day past expiry, so a late click still gets "this link has expired" rather than "not valid". */
export async function purgeSignInLinks(db: Queryable, now: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM sign_in_links WHERE expires_at <= $1', [new Date(now.getTime() - 24 * 3_600_000)]);
  return rowCount ?? 0;
}
