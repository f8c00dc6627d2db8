import { createNotificationListener } from '../../platform/listener.js';
import type { Pool } from '../../platform/db.js';
import { sha256Hex } from '../../platform/crypto.js';
import type { AuthenticatedKey } from './api-keys.js';

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
 * that raced with an invalidation is not cached (generation check), only
 * positive results are cached, and entries expire after `ttlMs` regardless.
 */
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

export function createKeyCache(opts: { pool: Pool; ttlMs?: number; maxEntries?: number; log?: { warn(o: object, m?: string): void } }) {
  const ttlMs = opts.ttlMs ?? 60_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const entries = new Map<string, Entry>();
  const listener = createNotificationListener({
    connection: opts.pool.options,
    channel: KEYS_CHANNEL,
    // Every notification, and every (re)connect (anything cached before it may have missed one).
    onNotify: invalidateKeyCaches,
    onLost: invalidateKeyCaches,
    log: opts.log,
  });

  return {
    start: () => listener.start(),
    stop: () => listener.stop(),

    /** The key for `token`, from the cache when it is safe, else from `load`. */
    async lookup(token: string, load: () => Promise<AuthenticatedKey | null>): Promise<AuthenticatedKey | null> {
      const id = sha256Hex(token);
      const now = Date.now();
      const hit = entries.get(id);
      if (hit && listener.isListening() && hit.generation === generation && hit.expiresAt > now) return hit.key;
      const before = generation;
      const key = await load();
      if (key && listener.isListening() && before === generation) {
        if (entries.size >= maxEntries) entries.clear();
        entries.set(id, { key, generation: before, expiresAt: now + ttlMs });
      } else {
        entries.delete(id);
      }
      return key;
    },
  };
}

export type KeyCache = ReturnType<typeof createKeyCache>;
