import type { Readable } from 'node:stream';
import type { Config } from '../../platform/config.js';
import type { AppContext } from '../../platform/context.js';
import { hmacSha256, safeEqual, sha256Hex } from '../../platform/crypto.js';
import { AppError, notFound } from '../../platform/errors.js';
import { storageFor } from '../../platform/storage/storage.js';
import { findCurrentAnswerFile, type AnswerFile } from './answer-files.js';

/**
 * Signed download links of answer files, as proctoring's file URLs
 * (proctoring/file-urls.ts): `{PUBLIC_BASE_URL}/answer-files/{token}`, token
 * = `{kid}.{base64url(expiry|fileId)}.{base64url(HMAC-SHA256)}`, valid 15
 * minutes, keyed from ASSAY_SECRET with a label of its own (a proctoring
 * file token or a start link never passes for one). Only a service that has
 * checked the reader (the portal: staff who may mark, of the file's
 * institution, or an operator) issues a link. Serving reads the file's row:
 * a file that is no longer the answer (replaced, cleared) or was purged is
 * not found, whatever the link says.
 */
export const ANSWER_FILE_URL_TTL_MS = 15 * 60_000;

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

function createSigner(secrets: readonly string[], publicBaseUrl: string) {
  const keys = secrets.map((secret) => ({ kid: sha256Hex(`kid:${secret}`).slice(0, 8), key: hmacSha256(secret, 'assay answer-file-url v1') }));
  const signing = keys[0]!;
  const mac = (key: Buffer, kid: string, payload: string) => b64url(hmacSha256(key, `${kid}.${payload}`));
  return {
    sign(fileId: string, expiresAt: Date): string {
      const payload = `${Math.floor(expiresAt.getTime() / 1000)}|${fileId}`;
      return `${publicBaseUrl}/answer-files/${signing.kid}.${b64url(payload)}.${mac(signing.key, signing.kid, payload)}`;
    },
    verify(token: string, now: Date): { ok: true; fileId: string } | { ok: false; reason: 'invalid' | 'expired' } {
      const parts = token.split('.');
      if (parts.length !== 3 || token.length > 512) return { ok: false, reason: 'invalid' };
      const [kid, encoded, signature] = parts as [string, string, string];
      const key = keys.find((k) => k.kid === kid);
      if (!key) return { ok: false, reason: 'invalid' };
      const payload = Buffer.from(encoded, 'base64url').toString('utf8');
      if (b64url(payload) !== encoded || !safeEqual(mac(key.key, kid, payload), signature)) return { ok: false, reason: 'invalid' };
      const m = /^(\d{1,12})\|(fil_[A-Za-z0-9]{1,40})$/.exec(payload);
      if (!m) return { ok: false, reason: 'invalid' };
      if (Number(m[1]) * 1000 <= now.getTime()) return { ok: false, reason: 'expired' };
      return { ok: true, fileId: m[2]! };
    },
  };
}

const signers = new WeakMap<object, ReturnType<typeof createSigner>>();

function signerFor(config: Readonly<Config>) {
  let s = signers.get(config);
  if (!s) {
    if (!config.secrets || config.secrets.length === 0) throw new Error('file URLs need ASSAY_SECRET');
    s = createSigner(config.secrets, config.publicBaseUrl);
    signers.set(config, s);
  }
  return s;
}

/** A link to the file, valid 15 minutes from `now` (whole seconds). The caller has checked the reader. */
export function answerFileUrl(config: Readonly<Config>, now: Date, fileId: string): { url: string; expiresAt: Date } {
  const expiresAt = new Date(Math.floor((now.getTime() + ANSWER_FILE_URL_TTL_MS) / 1000) * 1000);
  return { url: signerFor(config).sign(fileId, expiresAt), expiresAt };
}

/** Types a browser may show inline from a link: images and PDF. Everything else is a download. */
export const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf']);

/**
 * `GET /answer-files/{token}`: the file, streamed. A token that does not
 * verify, or names a file that is no longer an answer: 404; a genuine one
 * past its time: 410 link_expired (open the page again for a fresh link).
 */
export async function openAnswerFile(ctx: AppContext, token: string): Promise<{ file: AnswerFile; body: Readable; size: number }> {
  const verified = signerFor(ctx.config).verify(token, ctx.clock.now());
  if (!verified.ok && verified.reason === 'expired') {
    throw new AppError('link_expired', 'This file link has expired. Open the page again for a fresh link (links last 15 minutes).');
  }
  if (!verified.ok) throw notFound('file');
  const file = await findCurrentAnswerFile(ctx.pool, null, verified.fileId);
  if (!file) throw notFound('file');
  const object = await storageFor(ctx.config).get(file.storageKey);
  if (!object) throw notFound('file');
  return { file, body: object.body, size: object.size };
}
