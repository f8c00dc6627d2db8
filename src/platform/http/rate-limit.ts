/**
 * Token-bucket rate limiting per API key: `perSecond` tokens refill each
 * second up to `burst`. Headers follow the IETF RateLimit fields draft.
 *
 * Limit: the buckets live in this process's memory, so with N API processes a
 * key can reach N × the limit. That keeps the check off the database on
 * every request; a shared limiter (PostgreSQL or a cache) is the step up.
 */
export interface RateLimitResult {
  allowed: boolean;
  headers: Record<string, string>;
}

export function createRateLimiter(opts: { perSecond: number; burst: number; now?: () => number; maxKeys?: number }) {
  const now = opts.now ?? (() => performance.now());
  const maxKeys = opts.maxKeys ?? 100_000;
  const buckets = new Map<string, { tokens: number; at: number }>();

  return function take(key: string): RateLimitResult {
    const t = now();
    let b = buckets.get(key);
    if (!b) {
      if (buckets.size >= maxKeys) buckets.clear();
      b = { tokens: opts.burst, at: t };
      buckets.set(key, b);
    } else {
      b.tokens = Math.min(opts.burst, b.tokens + ((t - b.at) / 1000) * opts.perSecond);
      b.at = t;
    }
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    const remaining = Math.floor(b.tokens);
    const reset = Math.ceil((opts.burst - b.tokens) / opts.perSecond);
    const headers: Record<string, string> = {
      'RateLimit-Limit': String(opts.burst),
      'RateLimit-Remaining': String(remaining),
      'RateLimit-Reset': String(reset),
    };
    if (!allowed) headers['Retry-After'] = String(Math.max(1, Math.ceil((1 - b.tokens) / opts.perSecond)));
    return { allowed, headers };
  };
}
