import { createNotificationListener } from '../../platform/listener.js';
import { sessionConnectionString } from '../../platform/session-connection.js';
import type { Pool } from '../../platform/db.js';
import type { InstitutionStatus } from './institution-status.js';
import { sha256Hex } from '../../platform/crypto.js';

/**
 * A per-process cache of authenticated API keys, so a partner request costs
 * one database round trip instead of two.
 *
 * Revocation still takes effect on the next request: the statement that
 * revokes a key or suspends an institution also NOTIFYs `assay_api_keys`,
 * and every API process LISTENs and drops its whole cache on any
 * notification. In the revoking process itself the drop is synchronous
 * (`invalidateKeyCaches`), before the operator's response is sent. Across
 * processes the notification arrives within milliseconds of the commit; that
 * window is the limit of this design.
 *
 * Safety rules: nothing is cached while this process's LISTEN connection is
 * down (a missed notification must not leave a revoked key cached), a lookup
 * that raced with an invalidation is not cached (generation check), and
 * entries expire after `ttlMs` regardless.
 *
 * Negative cache: a well-formed key that matched nothing is remembered as
 * unknown for `negativeTtlMs`, so a client repeating a wrong key costs no
 * database lookup. That is safe without invalidation: a key only ever stops
 * working (revocation), and a key string that matches nothing cannot start
 * to, short of someone creating a key by guessing it. Both tables are
 * bounded, least recently used out first.
 */
/** A key that authenticated: what the partner auth hook and the cache hold (never the key itself). */
export interface AuthenticatedKey {
  keyId: string;
  institutionId: string;
  institutionStatus: InstitutionStatus;
  /** False for a test-mode key. */
  livemode: boolean;
  lastUsedAt: Date | null;
}

export const KEYS_CHANNEL = 'assay_api_keys';

/** Bumped on every invalidation seen by this process; entries from an older generation are dead. */
let generation = 0;

export function invalidateKeyCaches(): void {
  generation++;
}

interface Entry {
  key: AuthenticatedKey;
  generation: number;
  expiresAt: number;
}

export function createKeyCache(opts: {
  pool: Pool;
  ttlMs?: number;
  negativeTtlMs?: number;
  maxEntries?: number;
  log?: { warn(o: object, m?: string): void };
}) {
  const ttlMs = opts.ttlMs ?? 60_000;
  const negativeTtlMs = opts.negativeTtlMs ?? 60_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const entries = new Map<string, Entry>();
  /** Hash of an unknown key → when to forget it. */
  const unknown = new Map<string, number>();
  const listener = createNotificationListener({
    // LISTEN needs a session: on ASSAY_DATABASE_SESSION_URL when the pool goes through a transaction-mode pooler.
    connection: { ...opts.pool.options, connectionString: sessionConnectionString(opts.pool), application_name: 'assay-key-listener' },
    channel: KEYS_CHANNEL,
    // Every notification, and every (re)connect (anything cached before it may have missed one).
    onNotify: invalidateKeyCaches,
    onLost: invalidateKeyCaches,
    log: opts.log,
  });

  return {
    start: () => listener.start(),
    stop: () => listener.stop(),

    /** What is known of `token` without the database: the key, 'unknown' (recently matched nothing), or undefined. */
    peek(token: string): AuthenticatedKey | 'unknown' | undefined {
      const id = sha256Hex(token);
      const now = Date.now();
      const hit = entries.get(id);
      if (hit && listener.isListening() && hit.generation === generation && hit.expiresAt > now) return hit.key;
      const forgetAt = unknown.get(id);
      if (forgetAt !== undefined) {
        if (forgetAt > now) return 'unknown';
        unknown.delete(id);
      }
      return undefined;
    },

    /** The key for `token`, from the cache when it is safe, else from `load`. */
    async lookup(token: string, load: () => Promise<AuthenticatedKey | null>): Promise<AuthenticatedKey | null> {
      const known = this.peek(token);
      if (known === 'unknown') return null;
      if (known) return known;
      const id = sha256Hex(token);
      const now = Date.now();
      const before = generation;
      const key = await load();
      if (!key) {
        remember(unknown, id, now + negativeTtlMs, maxEntries);
        entries.delete(id);
      } else if (listener.isListening() && before === generation) {
        remember(entries, id, { key, generation: before, expiresAt: now + ttlMs }, maxEntries);
      } else {
        entries.delete(id);
      }
      return key;
    },
  };
}

/** Sets `id` as the most recent entry, dropping the least recently set one when the table is full. */
function remember<V>(table: Map<string, V>, id: string, value: V, max = 10_000): void {
  table.delete(id);
  if (table.size >= max) table.delete(table.keys().next().value!);
  table.set(id, value);
}

export type KeyCache = ReturnType<typeof createKeyCache>;
