import type { AppContext } from '../../platform/context.js';
import type { Config } from '../../platform/config.js';
import { hmacSha256, safeEqual, sha256Hex } from '../../platform/crypto.js';
import { AppError, notFound } from '../../platform/errors.js';
import { storageFor } from '../../platform/storage/storage.js';
import { type StoredObject } from '../../platform/storage/object-store.js';

/**
 * Signed, short-lived file URLs: `{PUBLIC_BASE_URL}/files/{token}`, token =
 * `{kid}.{base64url(expiry|contentType|key)}.{base64url(HMAC-SHA256)}`.
 * Files are never served from a guessable path: only a service that has
 * checked the reader's tenant issues a URL, and the URL names one object for
 * 15 minutes. The HMAC key is derived from ASSAY_SECRET with its own label,
 * so a file token can never pass for a start link or the other way round;
 * the first secret signs, every configured secret verifies (rotation).
 * Serving needs no database read: the token carries the storage key.
 */
export const FILE_URL_TTL_MS = 15 * 60_000;

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');
const CONTENT_TYPES = new Set(['video/webm', 'image/jpeg']);

function createFileSigner(secrets: readonly string[], publicBaseUrl: string) {
  const keys = secrets.map((secret) => ({ kid: sha256Hex(`kid:${secret}`).slice(0, 8), key: hmacSha256(secret, 'assay file-url v1') }));
  const signing = keys[0]!;
  const mac = (key: Buffer, kid: string, payload: string) => b64url(hmacSha256(key, `${kid}.${payload}`));
  return {
    sign(storageKey: string, contentType: string, expiresAt: Date): string {
      const payload = `${Math.floor(expiresAt.getTime() / 1000)}|${contentType}|${storageKey}`;
      return `${publicBaseUrl}/files/${signing.kid}.${b64url(payload)}.${mac(signing.key, signing.kid, payload)}`;
    },
    verify(token: string, now: Date): { ok: true; storageKey: string; contentType: string } | { ok: false; reason: 'invalid' | 'expired' } {
      const parts = token.split('.');
      if (parts.length !== 3 || token.length > 1024) return { ok: false, reason: 'invalid' };
      const [kid, encoded, signature] = parts as [string, string, string];
      const key = keys.find((k) => k.kid === kid);
      if (!key) return { ok: false, reason: 'invalid' };
      const payload = Buffer.from(encoded, 'base64url').toString('utf8');
      if (b64url(payload) !== encoded || !safeEqual(mac(key.key, kid, payload), signature)) return { ok: false, reason: 'invalid' };
      const m = /^(\d{1,12})\|([a-z]+\/[a-z0-9.+-]+)\|(proctoring\/[A-Za-z0-9_./-]+)$/.exec(payload);
      if (!m || !CONTENT_TYPES.has(m[2]!)) return { ok: false, reason: 'invalid' };
      if (Number(m[1]) * 1000 <= now.getTime()) return { ok: false, reason: 'expired' };
      return { ok: true, contentType: m[2]!, storageKey: m[3]! };
    },
  };
}

const signers = new WeakMap<object, ReturnType<typeof createFileSigner>>();

function signerFor(config: Readonly<Config>) {
  let s = signers.get(config);
  if (!s) {
    if (!config.secrets || config.secrets.length === 0) throw new Error('file URLs need ASSAY_SECRET');
    s = createFileSigner(config.secrets, config.publicBaseUrl);
    signers.set(config, s);
  }
  return s;
}

/** Signs URLs that all expire together, 15 minutes from `now` (whole seconds, so the token and the API agree). */
export function fileUrlIssuer(config: Readonly<Config>, now: Date) {
  const expiresAt = new Date(Math.floor((now.getTime() + FILE_URL_TTL_MS) / 1000) * 1000);
  const signer = signerFor(config);
  return { expiresAt, url: (storageKey: string, contentType: string) => signer.sign(storageKey, contentType, expiresAt) };
}

/**
 * `GET /files/{token}`: the object the token names, as a stream. A token that
 * does not verify is not found (404); a genuine one past its time is 410
 * link_expired, so the reader knows to ask the API for a fresh URL; a purged
 * file is not found.
 */
export async function openSignedFile(ctx: AppContext, token: string): Promise<StoredObject & { contentType: string }> {
  const verified = signerFor(ctx.config).verify(token, ctx.clock.now());
  if (!verified.ok && verified.reason === 'expired') {
    throw new AppError('link_expired', 'This file link has expired. Read the proctoring report again for a fresh link (links last 15 minutes).');
  }
  if (!verified.ok) throw notFound('file');
  const object = await storageFor(ctx.config).get(verified.storageKey);
  if (!object) throw notFound('file');
  return { ...object, contentType: verified.contentType };
}
