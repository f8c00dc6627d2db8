import type { Pool } from '../db.js';
import { createRateLimiter, limitResult, type RateLimitResult } from './rate-limit.js';

/**
 * Where the per-key token buckets live (ASSAY_RATE_LIMIT_STORE):
 *
 * - `memory`: in this process (rate-limit.ts). No I/O, but with N API
 *   processes a key can reach N × the limit. The default with the embedded
 *   PostgreSQL, where only one process can run.
 * - `batched` (the default with DATABASE_URL): each process answers from
 *   its own copy of every key's bucket and, every `syncMs` (100 ms), writes
 *   what it took from all keys and reads their shared balance back in one
 *   statement on the same table as `postgres` (createBatchedStore below).
 *   A request costs what the memory store's does; the error is bounded by
 *   what the other processes take between two syncs (docs/production.md).
 * - `postgres`: one UNLOGGED table shared by every API process, each request
 *   one statement that refills and takes a token atomically (the row lock
 *   orders concurrent requests for one key, from any process), on the
 *   database's clock so processes need not agree on time. Exact, at a round
 *   trip per request. UNLOGGED: no WAL, and a database crash empties the
 *   table, which only hands every key a full bucket. Buckets idle long
 *   enough to be full again are deleted once a minute.
 *
 * When the database cannot be reached, both shared stores fail open to this
 * process's own bucket (as `memory` would count), so the partner API never
 * answers 500 for a limit it could not check.
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
export const RATE_LIMIT_STORE_KINDS = ['memory', 'batched', 'postgres'] as const;
export type RateLimitStoreKind = (typeof RATE_LIMIT_STORE_KINDS)[number];

interface Limits {
  perSecond: number;
  burst: number;
}

interface StoreLog {
  warn(o: object, m?: string): void;
}

export function createRateLimitStore(kind: RateLimitStoreKind, limits: Limits, pool: Pool, log?: StoreLog): RateLimitStore {
  if (kind === 'memory') {
    const take = createRateLimiter(limits);
    return { take, stop: () => undefined };
  }
  return kind === 'batched' ? createBatchedStore(limits, pool, { log }) : createPostgresStore(limits, pool, log);
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

/** Deletes the buckets idle long enough to be full again (deleting them changes nothing), once a minute. */
function purgeFullBuckets(limits: Limits, pool: Pool): NodeJS.Timeout {
  const fullAfterSeconds = Math.ceil(limits.burst / limits.perSecond) + 1;
  return setInterval(() => {
    pool
      .query(`DELETE FROM rate_limit_buckets WHERE updated_at < now() - make_interval(secs => $1)`, [fullAfterSeconds])
      .catch(() => undefined); // the next round tries again
  }, PURGE_EVERY_MS).unref();
}

/** Logs the first failure of a run of them, not every request's. */
function failureLog(log: StoreLog | undefined, what: string) {
  let failing = false;
  return {
    failed(err: unknown) {
      if (!failing) log?.warn({ err: (err as Error).message }, `${what}; counting in this process until the database answers`);
      failing = true;
    },
    ok() {
      failing = false;
    },
  };
}

function createPostgresStore(limits: Limits, pool: Pool, log?: StoreLog): RateLimitStore {
  const purge = purgeFullBuckets(limits, pool);
  const fallback = createRateLimiter(limits);
  const failures = failureLog(log, 'the shared rate limit could not be read');
  return {
    async take(key) {
      try {
        const { rows } = await pool.query<{ tokens: number; allowed: boolean }>({
          name: 'rate-limit-take',
          text: TAKE_SQL,
          values: [key, limits.perSecond, limits.burst],
        });
        failures.ok();
        return limitResult(rows[0]!.allowed, rows[0]!.tokens, limits);
      } catch (err) {
        failures.failed(err);
        return fallback(key);
      }
    },
    stop: () => clearInterval(purge),
  };
}

/**
 * One sync: for every key this process used since the last one, the tokens
 * it took (`taken`) come off the shared bucket, refilled on the database's
 * clock as TAKE_SQL refills it; the balance comes back. The balance may go
 * below zero (requests admitted by several processes from the same view):
 * that debt is paid back before the key is admitted again, so the long-run
 * rate stays the limit; it is floored at minus one burst, so the requests a
 * long database outage let each process count alone are not all charged at
 * once. Keys are sent sorted, so two processes' syncs lock rows in the same
 * order and do not deadlock.
 */
const SYNC_SQL = `
  INSERT INTO rate_limit_buckets AS b (key, tokens, allowed, updated_at)
  SELECT t.key, $3::float8 - t.taken, true, now() FROM unnest($1::text[], $4::float8[]) AS t(key, taken)
  ON CONFLICT (key) DO UPDATE SET
    tokens = GREATEST(-$3::float8, LEAST($3::float8, b.tokens + extract(epoch FROM now() - b.updated_at)::float8 * $2::float8) - ($3::float8 - EXCLUDED.tokens)),
    updated_at = now()
  RETURNING key, tokens`;

/** A key's bucket as this process sees it. */
interface Share {
  /** Tokens as of `at`: the shared balance at the last sync, less what was taken here since, refilled locally. */
  tokens: number;
  at: number;
  /** Taken here and not yet written; `sending`: taken here and in the sync under way. */
  owed: number;
  sending: number;
  /** Read from the database at least once (or given up on: the database is away). */
  known: boolean;
}

/**
 * The `batched` store. Each process keeps a token bucket per key, answers
 * from it at once, and every `syncMs` sends the tokens it took from every key
 * it saw and takes the shared balance back (SYNC_SQL): one statement per
 * process per period, whatever the traffic. A key this process has not seen
 * waits for one sync (its first request only). Between syncs, each process
 * admits against the balance it last read plus its refill; so N processes
 * together can admit, in one sync period, up to (N − 1) × (burst + perSecond
 * × the period) more than one bucket would, which the shared balance then
 * owes and pays back before the key is admitted again. When a sync fails,
 * every process goes on counting its own bucket (as `memory` does) and the
 * tokens it took are written with the next sync that succeeds.
 */
export function createBatchedStore(limits: Limits, pool: Pool, opts: { syncMs?: number; maxKeys?: number; now?: () => number; log?: StoreLog } = {}): RateLimitStore & { sync(): Promise<void> } {
  const syncMs = opts.syncMs ?? 100;
  const maxKeys = opts.maxKeys ?? 100_000;
  const now = opts.now ?? (() => performance.now());
  const failures = failureLog(opts.log, 'the shared rate limit could not be synced');
  /** Least recently used first (re-inserted on use), as in createRateLimiter. */
  const shares = new Map<string, Share>();
  /** Keys used since the last sync began. */
  let dirty = new Set<string>();
  let syncing: Promise<void> | null = null;
  let next: Promise<void> | null = null;

  function refill(s: Share, t: number): void {
    s.tokens = Math.min(limits.burst, s.tokens + ((t - s.at) / 1000) * limits.perSecond);
    s.at = t;
  }

  async function syncOnce(): Promise<void> {
    const keys = [...dirty].filter((k) => shares.has(k)).sort();
    dirty = new Set();
    if (keys.length === 0) return;
    const sent = keys.map((k) => {
      const s = shares.get(k)!;
      s.sending = s.owed;
      s.owed = 0;
      return s;
    });
    try {
      const { rows } = await pool.query<{ key: string; tokens: number }>({
        name: 'rate-limit-sync',
        text: SYNC_SQL,
        values: [keys, limits.perSecond, limits.burst, sent.map((s) => s.sending)],
      });
      failures.ok();
      const t = now();
      for (const r of rows) {
        const s = shares.get(r.key);
        if (!s) continue; // forgotten meanwhile (a full table)
        // The shared balance now, less what this process took while the sync was under way.
        s.tokens = r.tokens - s.owed;
        s.at = t;
        s.known = true;
      }
      for (const s of sent) s.sending = 0;
    } catch (err) {
      failures.failed(err);
      for (let i = 0; i < keys.length; i++) {
        const s = sent[i]!;
        s.owed += s.sending; // written with the next sync that succeeds
        s.sending = 0;
        s.known = true; // its first request does not wait again: it counts here meanwhile
        if (shares.get(keys[i]!) === s) dirty.add(keys[i]!);
      }
    }
  }

  /** Resolves once a sync that began after this call has ended (well or not: it never rejects). */
  function sync(): Promise<void> {
    if (!syncing) {
      syncing = syncOnce().finally(() => (syncing = null));
      return syncing;
    }
    next ??= syncing.then(() => {
      next = null;
      return sync();
    });
    return next;
  }

  const timer = setInterval(() => {
    if (dirty.size > 0 && !syncing) void sync();
  }, syncMs).unref();
  const purge = purgeFullBuckets(limits, pool);

  function answer(key: string, s: Share): RateLimitResult {
    refill(s, now());
    const allowed = s.tokens >= 1;
    if (allowed) {
      s.tokens -= 1;
      s.owed += 1;
    }
    // Refused requests mark the key too: its balance is read back, so a refusal ends when the shared bucket refills.
    dirty.add(key);
    return limitResult(allowed, s.tokens, limits);
  }

  return {
    take(key) {
      let s = shares.get(key);
      if (s) {
        shares.delete(key);
        shares.set(key, s);
        if (s.known) return answer(key, s);
      } else {
        if (shares.size >= maxKeys) shares.delete(shares.keys().next().value!);
        s = { tokens: limits.burst, at: now(), owed: 0, sending: 0, known: false };
        shares.set(key, s);
      }
      dirty.add(key);
      const share = s;
      return sync().then(() => answer(key, share));
    },
    sync,
    stop() {
      clearInterval(timer);
      clearInterval(purge);
    },
  };
}
