import { randomBase62, newId } from '../../platform/ids.js';
import { sha256Hex } from '../../platform/crypto.js';
import type { Queryable } from '../../platform/db.js';
import { KEYS_CHANNEL, invalidateKeyCaches, type AuthenticatedKey } from './key-cache.js';
import { withAuditEntry, type AuditContext } from '../staff/audit.js';
import type { InstitutionStatus } from './institution-status.js';

/**
 * API keys: `ak_live_` (live mode) or `ak_test_` (test mode) + 40 base62
 * characters. Only the SHA-256 is stored; a key has ~238 bits of entropy, so
 * a fast hash is enough (no password stretching needed) and lookups by hash
 * are a single index probe. A test key reaches the institution's test-mode
 * data only (docs/api-rules.md "Test mode").
 */
export type KeyMode = 'live' | 'test';
export const KEY_PREFIXES: Record<KeyMode, string> = { live: 'ak_live_', test: 'ak_test_' };
/** The live prefix; both prefixes have the same length. */
export const KEY_PREFIX = KEY_PREFIXES.live;
const KEY_SHAPE = /^ak_(live|test)_[0-9A-Za-z]{32,64}$/;

export interface ApiKeyRecord {
  keyId: string;
  label: string | null;
  prefix: string;
  mode: KeyMode;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export function generateApiKey(mode: KeyMode = 'live'): string {
  return KEY_PREFIXES[mode] + randomBase62(40);
}

export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

export function looksLikeApiKey(key: string): boolean {
  return KEY_SHAPE.test(key);
}

export async function createApiKey(
  db: Queryable,
  institutionId: string,
  label: string | null,
  audit?: AuditContext,
  mode: KeyMode = 'live',
): Promise<{ record: ApiKeyRecord; apiKey: string }> {
  return withAuditEntry(
    db,
    audit,
    (q) => insertApiKey(q, institutionId, label, mode),
    // The key itself never goes into the entry: its id and the shown prefix identify it.
    (created) => ({ action: 'api_key.created', objectType: 'api_key', objectId: created.record.keyId, institutionId, details: { label, mode, prefix: created.record.prefix } }),
  );
}

async function insertApiKey(db: Queryable, institutionId: string, label: string | null, mode: KeyMode): Promise<{ record: ApiKeyRecord; apiKey: string }> {
  const apiKey = generateApiKey(mode);
  const keyId = newId('key');
  const prefix = apiKey.slice(0, KEY_PREFIX.length + 4);
  const { rows } = await db.query<{ created_at: Date }>(
    `INSERT INTO api_keys (id, institution_id, key_hash, prefix, label, livemode) VALUES ($1, $2, $3, $4, $5, $6) RETURNING created_at`,
    [keyId, institutionId, hashApiKey(apiKey), prefix, label, mode === 'live'],
  );
  return {
    apiKey,
    record: { keyId, label, prefix, mode, createdAt: rows[0]!.created_at, lastUsedAt: null, revokedAt: null },
  };
}

export async function listApiKeys(db: Queryable, institutionId: string): Promise<ApiKeyRecord[]> {
  const { rows } = await db.query(
    `SELECT id, label, prefix, livemode, created_at, last_used_at, revoked_at FROM api_keys
      WHERE institution_id = $1 ORDER BY created_at, id`,
    [institutionId],
  );
  return rows.map((r) => ({
    keyId: r.id,
    label: r.label,
    prefix: r.prefix,
    mode: r.livemode ? 'live' : 'test',
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    revokedAt: r.revoked_at,
  }));
}

/**
 * Revokes a key of the institution; false when no such key exists there.
 * The same statement notifies every API process to drop its key cache, and
 * this process drops its own at once (see key-cache.ts).
 */
export async function revokeApiKey(db: Queryable, institutionId: string, keyId: string, now: Date, audit?: AuditContext): Promise<boolean> {
  const revoked = await withAuditEntry(
    db,
    audit,
    (q) => writeRevocation(q, institutionId, keyId, now),
    (done) => (done ? { action: 'api_key.revoked', objectType: 'api_key', objectId: keyId, institutionId } : null),
  );
  // Again after the audited transaction's commit: a lookup between the first drop and the commit may have cached the key.
  invalidateKeyCaches();
  return revoked;
}

async function writeRevocation(db: Queryable, institutionId: string, keyId: string, now: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    `WITH revoked AS (
       UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $3) WHERE id = $1 AND institution_id = $2 RETURNING id
     )
     SELECT pg_notify('${KEYS_CHANNEL}', id) FROM revoked`,
    [keyId, institutionId, now],
  );
  invalidateKeyCaches();
  return (rowCount ?? 0) > 0;
}

/** Finds an active key by its hash. The hash lookup itself is the comparison; nothing secret is compared in JS. */
export async function findActiveKey(db: Queryable, apiKey: string): Promise<AuthenticatedKey | null> {
  const { rows } = await db.query({
    name: 'find-active-key',
    text: `SELECT k.id, k.institution_id, k.livemode, k.last_used_at, i.status
       FROM api_keys k JOIN institutions i ON i.id = k.institution_id
      WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
    values: [hashApiKey(apiKey)],
  });
  const r = rows[0];
  if (!r) return null;
  return { keyId: r.id, institutionId: r.institution_id, institutionStatus: r.status, livemode: r.livemode, lastUsedAt: r.last_used_at };
}

export async function touchApiKey(db: Queryable, keyId: string, now: Date): Promise<void> {
  await db.query(`UPDATE api_keys SET last_used_at = $2 WHERE id = $1`, [keyId, now]);
}
