import { hmacSha256 } from '../../platform/crypto.js';
import { secretKeyBytes } from './secret-box.js';

/**
 * Standard Webhooks 1.0 signature: `v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`,
 * where key is the decoded bytes of the `whsec_` secret and timestamp is in
 * whole seconds. Several secrets (rotation overlap) give several signatures,
 * space-separated; a verifier accepts the message if any one matches.
 */
export function signatureHeader(secrets: readonly string[], msgId: string, timestampSeconds: number, body: string): string {
  const signed = `${msgId}.${timestampSeconds}.${body}`;
  return secrets.map((s) => `v1,${hmacSha256(secretKeyBytes(s), signed).toString('base64')}`).join(' ');
}
