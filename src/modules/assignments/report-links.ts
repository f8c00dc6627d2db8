import { hmacSha256, safeEqual, sha256Hex } from '../../platform/crypto.js';

/**
 * Signed links to a candidate's report (`result.reportUrl` on the partner
 * read): `{PUBLIC_BASE_URL}/reports/{token}`, token =
 * `{kid}.{base64url(assignmentId.expiry)}.{base64url(HMAC-SHA256)}`, valid
 * 15 minutes. The link carries no API key; its HMAC key is derived from
 * ASSAY_SECRET with its own label, so a report token can never pass for a
 * start link or a file URL (and the other way round); the first secret
 * signs, every configured secret verifies (rotation). A read of the
 * assignment signs a fresh one, as it does the start link.
 */
export const REPORT_LINK_TTL_MS = 15 * 60_000;

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

export type VerifiedReportLink = { ok: true; assignmentId: string; expiresAt: Date } | { ok: false; reason: 'invalid' | 'expired' };

export function createReportSigner(secrets: readonly string[], publicBaseUrl: string) {
  if (secrets.length === 0) throw new Error('createReportSigner: no secret');
  const keys = secrets.map((secret) => ({ kid: sha256Hex(`kid:${secret}`).slice(0, 8), key: hmacSha256(secret, 'assay report-link v1') }));
  const signing = keys[0]!;
  const mac = (key: Buffer, kid: string, payload: string) => b64url(hmacSha256(key, `${kid}.${payload}`));

  return {
    /** 15 minutes from now, in whole seconds, so the token and the response agree. */
    expiryFor(now: Date): Date {
      return new Date(Math.floor((now.getTime() + REPORT_LINK_TTL_MS) / 1000) * 1000);
    },

    issue(assignmentId: string, expiresAt: Date): string {
      const payload = `${assignmentId}.${Math.floor(expiresAt.getTime() / 1000)}`;
      return `${publicBaseUrl}/reports/${signing.kid}.${b64url(payload)}.${mac(signing.key, signing.kid, payload)}`;
    },

    verify(token: string, now: Date): VerifiedReportLink {
      const parts = token.split('.');
      if (parts.length !== 3 || token.length > 512) return { ok: false, reason: 'invalid' };
      const [kid, encoded, signature] = parts as [string, string, string];
      const key = keys.find((k) => k.kid === kid);
      if (!key) return { ok: false, reason: 'invalid' };
      const payload = Buffer.from(encoded, 'base64url').toString('utf8');
      if (b64url(payload) !== encoded || !safeEqual(mac(key.key, kid, payload), signature)) return { ok: false, reason: 'invalid' };
      const m = /^(asg_[0-9A-Za-z]+)\.(\d{1,12})$/.exec(payload);
      if (!m) return { ok: false, reason: 'invalid' };
      const expiresAt = new Date(Number(m[2]) * 1000);
      if (expiresAt.getTime() <= now.getTime()) return { ok: false, reason: 'expired' };
      return { ok: true, assignmentId: m[1]!, expiresAt };
    },
  };
}

export type ReportSigner = ReturnType<typeof createReportSigner>;
