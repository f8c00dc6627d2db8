import { Webhook } from 'standardwebhooks';
import { AssayWebhookVerificationError } from './errors.js';
import type { AssayEvent } from './types.js';

/** The delivery's headers: a Fetch `Headers`, or Node's `req.headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Checks a webhook delivery with the public Standard Webhooks library: the
 * `webhook-signature` must be an HMAC-SHA256 of `id.timestamp.body` under
 * your endpoint's secret, and `webhook-timestamp` within the standard's
 * tolerance (5 minutes) of your clock, so a captured delivery cannot be
 * replayed later. Pass the raw body exactly as received (a string or
 * Buffer, before any JSON parsing). During a secret rotation pass both
 * secrets: a delivery signed with either is accepted.
 *
 * Returns the parsed event. Throws `AssayWebhookVerificationError` when the
 * delivery is not authentic: answer it with 400 and do not act on it.
 * Deliveries are at-least-once: store `webhook-id` (equal to the event's `id`)
 * and ignore an id you have already processed.
 */
export function verifyWebhook(payload: string | Uint8Array, headers: WebhookHeaders, secret: string | string[]): AssayEvent {
  const flat = standardHeaders(headers);
  const body = typeof payload === 'string' ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  let lastError: unknown;
  for (const s of Array.isArray(secret) ? secret : [secret]) {
    try {
      return new Webhook(s).verify(body, flat) as AssayEvent;
    } catch (err) {
      lastError = err;
    }
  }
  const message = lastError instanceof Error ? lastError.message : 'no secret given';
  throw new AssayWebhookVerificationError({ status: null, code: 'invalid_webhook', message: `Webhook not verified: ${message}`, cause: lastError });
}

/** The three Standard Webhooks headers, from a Fetch `Headers` or a Node `IncomingHttpHeaders`-like object. */
function standardHeaders(headers: WebhookHeaders): Record<string, string> {
  const get = (name: string): string => {
    if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? '';
    const record = headers as Record<string, string | string[] | undefined>;
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    const value = key === undefined ? undefined : record[key];
    return Array.isArray(value) ? value.join(' ') : (value ?? '');
  };
  return { 'webhook-id': get('webhook-id'), 'webhook-timestamp': get('webhook-timestamp'), 'webhook-signature': get('webhook-signature') };
}
