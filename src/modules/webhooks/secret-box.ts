import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { hmacSha256, sha256Hex } from '../../platform/crypto.js';

/**
 * Endpoint signing secrets: generated here, shown to the partner once, and
 * stored encrypted (AES-256-GCM) because the service must sign with them
 * again on every delivery, so a hash would not do.
 *
 * Format v2 (written now): `v2.<keyId>.<iv>.<ciphertext+tag>`. The key is
 * derived from an ASSAY_SECRET with HKDF-SHA256, and the endpoint id is the
 * GCM additional data: a box copied onto another endpoint's row (by someone
 * with write access to the database) does not open there.
 * Format v1 (read only): the key was HMAC-SHA256(ASSAY_SECRET, label), no
 * additional data. Both stay readable; `assay reseal-secrets` rewrites every
 * box in v2 under the first ASSAY_SECRET, after which older secrets can be
 * dropped from the list.
 *
 * ASSAY_SECRET may list several secrets: the first seals, any of them opens
 * (each box names its key by a short key id). Limit: a database dump together
 * with ASSAY_SECRET reveals the endpoint secrets; the dump alone does not.
 */
export const SECRET_PREFIX = 'whsec_';
/** Standard Webhooks allows 24–64 bytes; 32 matches HMAC-SHA256's block of output. */
const SECRET_BYTES = 32;
const V1_LABEL = 'assay/webhook-endpoint-secrets/v1';
const V2_SALT = 'assay';
const V2_INFO = 'assay/webhook-endpoint-secrets/v2';

export interface SecretBox {
  /** Seals `secret` for the endpoint `endpointId` (the id is bound into the box). */
  seal(secret: string, endpointId: string): string;
  open(sealed: string, endpointId: string): string;
  /** True when `sealed` is in the current format under the first (sealing) secret: nothing to reseal. */
  isCurrent(sealed: string): boolean;
}

export function generateEndpointSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The HMAC key of a `whsec_…` secret: the base64-decoded bytes after the prefix. */
export function secretKeyBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

interface Key {
  id: string;
  key: Buffer;
}

const keyId = (key: Buffer) => sha256Hex(key).slice(0, 8);

export function createSecretBox(serviceSecrets: readonly string[]): SecretBox {
  if (serviceSecrets.length === 0) throw new Error('createSecretBox: no service secret');
  const v2: Key[] = serviceSecrets.map((s) => {
    const key = Buffer.from(hkdfSync('sha256', s, V2_SALT, V2_INFO, 32));
    return { id: keyId(key), key };
  });
  const v1: Key[] = serviceSecrets.map((s) => {
    const key = hmacSha256(s, V1_LABEL);
    return { id: keyId(key), key };
  });
  const byVersion = { v1: new Map(v1.map((k) => [k.id, k.key])), v2: new Map(v2.map((k) => [k.id, k.key])) };
  const current = v2[0]!;

  return {
    seal(secret, endpointId) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      cipher.setAAD(Buffer.from(endpointId, 'utf8'));
      const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return ['v2', current.id, iv.toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed, endpointId) {
      const [version, id, ivText, bodyText] = sealed.split('.');
      const keys = version === 'v1' || version === 'v2' ? byVersion[version] : undefined;
      const key = keys && id ? keys.get(id) : undefined;
      if (!key || !ivText || !bodyText) throw new Error('webhook secret cannot be decrypted with the configured ASSAY_SECRET');
      const body = Buffer.from(bodyText, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'));
      if (version === 'v2') decipher.setAAD(Buffer.from(endpointId, 'utf8'));
      decipher.setAuthTag(body.subarray(body.length - 16));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
    },
    isCurrent(sealed) {
      const [version, id] = sealed.split('.');
      return version === 'v2' && id === current.id;
    },
  };
}

/**
 * `open` with a bounded cache: the dispatcher opens the same secrets for
 * every delivery to an endpoint. Each sealing has a fresh IV, so a rotated
 * secret is a new entry and a stale one is never returned.
 */
export function cachedOpener(box: SecretBox, max = 10_000): (sealed: string, endpointId: string) => string {
  const opened = new Map<string, string>();
  return (sealed, endpointId) => {
    const cacheKey = `${endpointId} ${sealed}`;
    let secret = opened.get(cacheKey);
    if (secret === undefined) {
      if (opened.size >= max) opened.delete(opened.keys().next().value!);
      secret = box.open(sealed, endpointId);
      opened.set(cacheKey, secret);
    }
    return secret;
  };
}
