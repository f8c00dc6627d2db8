import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { hmacSha256, sha256Hex } from '../../platform/crypto.js';

/**
 * Endpoint signing secrets: generated here, shown to the partner once, and
 * stored encrypted (AES-256-GCM) because the service must sign with them
 * again on every delivery, so a hash would not do.
 *
 * The encryption key is derived from ASSAY_SECRET (HMAC-SHA256 with a fixed
 * label). ASSAY_SECRET may list several secrets: the first encrypts, any of
 * them decrypts (each box names its key by a short key id), so the operator
 * can rotate ASSAY_SECRET without losing endpoint secrets. Limit: a database
 * dump together with ASSAY_SECRET reveals the endpoint secrets; the dump
 * alone does not.
 */
export const SECRET_PREFIX = 'whsec_';
/** Standard Webhooks allows 24–64 bytes; 32 matches HMAC-SHA256's block of output. */
const SECRET_BYTES = 32;
const LABEL = 'assay/webhook-endpoint-secrets/v1';

export interface SecretBox {
  seal(secret: string): string;
  open(sealed: string): string;
}

export function generateEndpointSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The HMAC key of a `whsec_…` secret: the base64-decoded bytes after the prefix. */
export function secretKeyBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

export function createSecretBox(serviceSecrets: readonly string[]): SecretBox {
  if (serviceSecrets.length === 0) throw new Error('createSecretBox: no service secret');
  const keys = serviceSecrets.map((s) => {
    const key = hmacSha256(s, LABEL);
    return { id: sha256Hex(key).slice(0, 8), key };
  });
  const byId = new Map(keys.map((k) => [k.id, k.key]));
  const current = keys[0]!;
  return {
    seal(secret) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return ['v1', current.id, iv.toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed) {
      const [version, keyId, ivText, bodyText] = sealed.split('.');
      const key = keyId ? byId.get(keyId) : undefined;
      if (version !== 'v1' || !key || !ivText || !bodyText) {
        throw new Error('webhook secret cannot be decrypted with the configured ASSAY_SECRET');
      }
      const body = Buffer.from(bodyText, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'));
      decipher.setAuthTag(body.subarray(body.length - 16));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * `open` with a bounded cache: the dispatcher opens the same secrets for
 * every delivery to an endpoint. Each sealing has a fresh IV, so a rotated
 * secret is a new entry and a stale one is never returned.
 */
export function cachedOpener(box: SecretBox, max = 10_000): (sealed: string) => string {
  const opened = new Map<string, string>();
  return (sealed) => {
    let secret = opened.get(sealed);
    if (secret === undefined) {
      if (opened.size >= max) opened.clear();
      secret = box.open(sealed);
      opened.set(sealed, secret);
    }
    return secret;
  };
}
