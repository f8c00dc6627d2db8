import type { Pool } from '../db.js';
import { createRateLimiter, limitResult, type RateLimitResult } from './rate-limit.js';

/**
 * Where the per-key token buckets live (ASSAY_RATE_LIMIT_STORE):
 *
 * - `memory` (default): in this process (rate-limit.ts). No I/O, but with N
 *   API processes a key can reach N × the limit.
 * - `postgres`: one UNLOGGED table shared by every API process, each request
 *   one statement that refills and takes a token atomically (the row lock
 *   orders concurrent requests for one key, from any process), on the
 *   database's clock so processes need not agree on time. It costs a round
 *   trip per request. UNLOGGED: no WAL, and a database crash empties the
 *   table, which only hands every key a full bucket. Buckets idle long
 *   enough to be full again are deleted once a minute.
 *
 * Redis would do the same with less load on PostgreSQL; it is not offered,
 * since PostgreSQL is the one store Assay runs on.
 */
export interface RateLimitStore {
  /** One request by `key`: allowed or not, with its RateLimit-* headers. The memory store answers synchronously. */
  take(key: string): RateLimitResult | Promise<RateLimitResult>;
  stop(): void;
}

/** Where the partner API's rate limit counts: in each process, or shared through PostgreSQL (ASSAY_RATE_LIMIT_STORE). */
export const RATE_LIMIT_STORE_KINDS = ['memory', 'postgres'] as const;
export type RateLimitStoreKind = (typeof RATE_LIMIT_STORE_KINDS)[number];

interface Limits {
  perSecond: number;
  burst: number;
}

export function createRateLimitStore(kind: RateLimitStoreKind, limits: Limits, pool: Pool): RateLimitStore {
  if (kind === 'memory') {
    const take = createRateLimiter(limits);
    return { take, stop: () => undefined };
  }
  return createPostgresStore(limits, pool);
}

/**
 * The bucket after this request: refilled by the time since its last use (at
 * most to the burst), less one token if at least one was there. A new key
 * starts full. `allowed` is stored with it so the statement can return it.
 */
const TAKE_SQL = `
  INSERT INTO rate_limit_buckets AS b (key, tokens, allowed, updated_at) VALUES ($1, $3::float8 - 1, true, now())
  ON CONFLICT (key) DO UPDATE SET
    tokens = CASE WHEN LEAST($3::float8, b.tokens + extract(epoch FROM now() - b.updated_at)::float8 * $2::float8) >= 1
                  THEN LEAST($3::float8, b.tokens + extract(epoch FROM now() - b.updated_at)::float8 * $2::float8) - 1
                  ELSE LEAST($3::float8, b.tokens + extract(epoch FROM now() - b.updated_at)::float8 * $2::float8) END,
    allowed = LEAST($3::float8, b.tokens + extract(epoch FROM now() - b.updated_at)::float8 * $2::float8) >= 1,
    updated_at = now()
  RETURNING tokens, allowed`;

const PURGE_EVERY_MS = 60_000;

function createPostgresStore(limits: Limits, pool: Pool): RateLimitStore {
  // A bucket untouched for this long has refilled completely: deleting it changes nothing.
  const fullAfterSeconds = Math.ceil(limits.burst / limits.perSecond) + 1;
  const purge = setInterval(() => {
    pool
      .query(`DELETE FROM rate_limit_buckets WHERE updated_at < now() - make_interval(secs => $1)`, [fullAfterSeconds])
      .catch(() => undefined); // the next round tries again
  }, PURGE_EVERY_MS).unref();
  return {
    async take(key) {
      const { rows } = await pool.query<{ tokens: number; allowed: boolean }>({
        name: 'rate-limit-take',
        text: TAKE_SQL,
        values: [key, limits.perSecond, limits.burst],
      });
      return limitResult(rows[0]!.allowed, rows[0]!.tokens, limits);
    },
    stop: () => clearInterval(purge),
  };
}
