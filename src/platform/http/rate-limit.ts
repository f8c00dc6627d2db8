/*
 * Coordination: rate-limit-store.ts puts the per-key limit behind one small
 * interface, RateLimitStore (`take(key)`, sync or async, and `stop()`), with
 * three stores: `memory` wraps createRateLimiter below, `batched` keeps a
 * copy per process synced with one table every 100 ms, `postgres` takes
 * each token from that table (ASSAY_RATE_LIMIT_STORE).
 * partner-auth.ts uses the store, not createRateLimiter directly. Both stores
 * answer through limitResult() below, so the headers are computed in one place.
 */

/**
 * Token-bucket rate limiting per API key: `perSecond` tokens refill each
 * second up to `burst`. Headers follow the IETF RateLimit fields draft:
 * `RateLimit-Limit` is the bucket size (the burst), `RateLimit-Remaining`
 * the whole tokens left, `RateLimit-Reset` the seconds until it is full.
 *
 * The interface the rest of the code relies on is this one function shape,
 * `take(key) → RateLimitResult` (RateLimiter below); where the buckets live
 * (this process's memory here, a shared store where several API processes
 * must keep one limit together) stays behind it, so a shared limiter can
 * replace createRateLimiter without touching its callers.
 *
 * In memory, at most `maxKeys` buckets are kept, least recently used out
 * first: a full table forgets the idlest key (which then starts with a full
 * bucket, as a new key would) rather than resetting everyone's.
 * Limit: with N API processes and the in-memory buckets, a key can reach N ×
 * the limit (the shared stores: rate-limit-store.ts).
 */
export interface RateLimitResult {
  allowed: boolean;
  headers: Record<string, string>;
}

export type RateLimiter = (key: string) => RateLimitResult;

interface Bucket {
  tokens: number;
  at: number;
}

export function createRateLimiter(opts: { perSecond: number; burst: number; now?: () => number; maxKeys?: number }): RateLimiter {
  const now = opts.now ?? (() => performance.now());
  const maxKeys = opts.maxKeys ?? 100_000;
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const buckets = new Map<string, Bucket>();

  return function take(key: string): RateLimitResult {
    const t = now();
    let b = buckets.get(key);
    if (!b) {
      if (buckets.size >= maxKeys) buckets.delete(buckets.keys().next().value!);
      b = { tokens: opts.burst, at: t };
    } else {
      buckets.delete(key);
      b.tokens = Math.min(opts.burst, b.tokens + ((t - b.at) / 1000) * opts.perSecond);
      b.at = t;
    }
    buckets.set(key, b);
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    return limitResult(allowed, b.tokens, opts);
  };
}

/** The answer for a bucket left with `tokens` after this request (which took one if `allowed`). */
export function limitResult(allowed: boolean, tokens: number, opts: { perSecond: number; burst: number }): RateLimitResult {
  // Lower-case names, as Fastify stores and sends every header: it then has no new name to make per request.
  const headers: Record<string, string> = {
    'ratelimit-limit': String(opts.burst),
    // A shared bucket may be in debt (rate-limit-store.ts): nothing remains then.
    'ratelimit-remaining': String(Math.max(0, Math.floor(tokens))),
    'ratelimit-reset': String(Math.ceil((opts.burst - tokens) / opts.perSecond)),
  };
  if (!allowed) headers['Retry-After'] = String(Math.max(1, Math.ceil((1 - tokens) / opts.perSecond)));
  return { allowed, headers };
}
