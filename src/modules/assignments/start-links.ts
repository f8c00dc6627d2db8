import { hmacSha256, safeEqual, sha256Hex } from '../../platform/crypto.js';
import { createReportSigner } from './report-links.js';

/**
 * Signed start links: `{PUBLIC_BASE_URL}/s/{token}` with
 * token = `{kid}.{base64url(assignmentId.expiry.linkVersion)}.{base64url(HMAC-SHA256)}`.
 * The key id names which secret signed it, so secrets can rotate: the first
 * configured secret signs, every configured secret verifies. Bumping the
 * assignment's link version invalidates all earlier links.
 */
export const START_LINK_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** How many signed links a signer keeps for reuse: a second's reads of this many assignments. */
const ISSUED_MAX = 4096;

export type VerifiedLink =
  | { ok: true; assignmentId: string; linkVersion: number; expiresAt: Date }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'expired'; assignmentId: string; linkVersion: number };

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

export function createLinkSigner(secrets: readonly string[], publicBaseUrl: string) {
  if (secrets.length === 0) throw new Error('createLinkSigner: no secret');
  const keys = secrets.map((secret) => ({ kid: sha256Hex(`kid:${secret}`).slice(0, 8), key: hmacSha256(secret, 'assay start-link v1') }));
  const signing = keys[0]!;
  /**
   * Links already signed, by payload (assignment, expiry second, link version), oldest first. Per signer,
   * so per secret list: a rotation makes a new signer and no link of the old signing key is reused. A new
   * link version or expiry second is a new payload, so a bumped link version is never served from here.
   */
  const issued = new Map<string, { token: string; url: string }>();

  function sign(kid: string, key: Buffer, payload: string): string {
    return b64url(hmacSha256(key, `${kid}.${payload}`));
  }
  const payloadOf = (assignmentId: string, linkVersion: number, expiresAt: Date) => `${assignmentId}.${Math.floor(expiresAt.getTime() / 1000)}.${linkVersion}`;
  const signed = (payload: string) => {
    const token = `${signing.kid}.${b64url(payload)}.${sign(signing.kid, signing.key, payload)}`;
    return Object.freeze({ token, url: `${publicBaseUrl}/s/${token}` });
  };

  return {
    /** The candidate report's links (report-links.ts): signed with a key of their own. */
    report: createReportSigner(secrets, publicBaseUrl),

    /** Expiry: 7 days from now, never past dueAt; whole seconds so the token and the API agree exactly. */
    expiryFor(now: Date, dueAt: Date | null): Date {
      const limit = Math.min(now.getTime() + START_LINK_TTL_MS, dueAt ? dueAt.getTime() : Infinity);
      return new Date(Math.floor(limit / 1000) * 1000);
    },

    issue(assignmentId: string, linkVersion: number, expiresAt: Date): { token: string; url: string } {
      const payload = payloadOf(assignmentId, linkVersion, expiresAt);
      // The token is a pure function of the payload and the signing key: a read repeated within the same
      // expiry second reuses the link signed the first time instead of computing the HMAC again.
      const cached = issued.get(payload);
      if (cached) return cached;
      const link = signed(payload);
      if (issued.size >= ISSUED_MAX) issued.delete(issued.keys().next().value!);
      issued.set(payload, link);
      return link;
    },

    /**
     * The same link as `issue`, signed without keeping it: for a link made once and not read again in
     * the same second (a new assignment's, a launch's). Kept, a burst of creates would churn the reads'
     * links out, and every link it kept would outlive a few young collections and die in the old
     * generation, for the reads after the burst to pay for (docs/performance.md).
     */
    issueOnce(assignmentId: string, linkVersion: number, expiresAt: Date): { token: string; url: string } {
      return signed(payloadOf(assignmentId, linkVersion, expiresAt));
    },

    verify(token: string, now: Date): VerifiedLink {
      const parts = token.split('.');
      if (parts.length !== 3 || token.length > 512) return { ok: false, reason: 'invalid' };
      const [kid, encoded, signature] = parts as [string, string, string];
      const key = keys.find((k) => k.kid === kid);
      if (!key) return { ok: false, reason: 'invalid' };
      const payload = Buffer.from(encoded, 'base64url').toString('utf8');
      if (b64url(payload) !== encoded) return { ok: false, reason: 'invalid' };
      if (!safeEqual(sign(kid, key.key, payload), signature)) return { ok: false, reason: 'invalid' };
      const match = /^(asg_[0-9A-Za-z]+)\.(\d{1,12})\.(\d{1,9})$/.exec(payload);
      if (!match) return { ok: false, reason: 'invalid' };
      const assignmentId = match[1]!;
      const expiresAt = new Date(Number(match[2]) * 1000);
      const linkVersion = Number(match[3]);
      if (expiresAt.getTime() <= now.getTime()) return { ok: false, reason: 'expired', assignmentId, linkVersion };
      return { ok: true, assignmentId, linkVersion, expiresAt };
    },
  };
}

export type LinkSigner = ReturnType<typeof createLinkSigner>;
