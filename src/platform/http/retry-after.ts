/** The longest `Retry-After` honoured from a server we call (a partner's webhook endpoint, a model server): 24 h. */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** `Retry-After` as delay-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  if (/^\s*\d+\s*$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}
