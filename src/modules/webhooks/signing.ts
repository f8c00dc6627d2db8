import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { secretKeyBytes } from './secret-box.js';

/**
 * Standard Webhooks 1.0 signature: `v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`,
 * where key is the decoded bytes of the `whsec_` secret and timestamp is in
 * whole seconds. Several secrets (rotation overlap) give several signatures,
 * space-separated; a verifier accepts the message if any one matches.
 */
export function signatureHeader(secrets: readonly string[], msgId: string, timestampSeconds: number, body: string): string {
  const signed = `${msgId}.${timestampSeconds}.${body}`;
  return secrets.map((s) => `v1,${createHmac('sha256', keyOf(s)).update(signed).digest('base64')}`).join(' ');
}

/**
 * Decoded HMAC keys by secret: every delivery to an endpoint signs with the
 * same secret, so it is decoded once. Bounded; a rotated secret is a new entry.
 */
const keys = new Map<string, KeyObject>();
const MAX_KEYS = 10_000;

function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_KEYS) keys.clear();
    key = createSecretKey(secretKeyBytes(secret));
    keys.set(secret, key);
  }
  return key;
}
