import { AppError } from '../../platform/errors.js';
import { canonicalJson, sha256Hex } from '../../platform/crypto.js';
import type { Tx } from '../../platform/db.js';

/**
 * Idempotency-Key handling for POST /assignments (docs/api-rules.md "Idempotency")
 * and PATCH /assignments/{id}. Keys are scoped by institution and route
 * (`scope`), so one key on two routes means two requests.
 *
 * `claimKey` runs first in the creating transaction. It inserts a placeholder
 * row; a concurrent request with the same key blocks on the unique index
 * until the first transaction ends, then sees its committed response and
 * replays it. If the first one fails (rolls back), the placeholder vanishes
 * and the waiter proceeds as new: a request that fails stores nothing.
 */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export type KeyClaim = { kind: 'new' } | { kind: 'replay'; status: number; body: string };

/** The scope of POST /assignments (rows from before scoping have it too). */
export const CREATE_SCOPE = 'POST /assignments';

export function fingerprint(body: unknown): string {
  return sha256Hex(canonicalJson(body));
}

/** `livemode`: the key's mode; a live and a test key never share an Idempotency-Key. */
export async function claimKey(tx: Tx, institutionId: string, key: string, print: string, now: Date, scope = CREATE_SCOPE, livemode = true): Promise<KeyClaim> {
  for (;;) {
    const inserted = await tx.query(
      `INSERT INTO idempotency_keys (institution_id, key, fingerprint, response_status, response_body, created_at, scope, livemode)
       VALUES ($1, $2, $3, 0, '', $4, $5, $6) ON CONFLICT DO NOTHING RETURNING 1`,
      [institutionId, key, print, now, scope, livemode],
    );
    if (inserted.rowCount === 1) return { kind: 'new' };
    const { rows } = await tx.query(
      `SELECT fingerprint, response_status, response_body, created_at FROM idempotency_keys
        WHERE institution_id = $1 AND key = $2 AND scope = $3 AND livemode = $4 FOR UPDATE`,
      [institutionId, key, scope, livemode],
    );
    const row = rows[0];
    if (!row) continue; // the earlier holder rolled back between our two statements: try again
    if (now.getTime() - row.created_at.getTime() >= IDEMPOTENCY_WINDOW_MS) {
      // Past the 24-hour window the key is free again, purged or not.
      await tx.query('DELETE FROM idempotency_keys WHERE institution_id = $1 AND key = $2 AND scope = $3 AND livemode = $4', [institutionId, key, scope, livemode]);
      continue;
    }
    if (row.fingerprint !== print) {
      throw new AppError(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request body. Use a new key for a new request.',
      );
    }
    return { kind: 'replay', status: row.response_status, body: row.response_body };
  }
}

export async function storeResponse(
  tx: Tx,
  institutionId: string,
  key: string,
  response: { status: number; body: string; assignmentId: string },
  scope = CREATE_SCOPE,
  livemode = true,
): Promise<void> {
  await tx.query(
    `UPDATE idempotency_keys SET response_status = $3, response_body = $4, assignment_id = $5
      WHERE institution_id = $1 AND key = $2 AND scope = $6 AND livemode = $7`,
    [institutionId, key, response.status, response.body, response.assignmentId, scope, livemode],
  );
}

export async function purgeExpiredKeys(db: Tx | { query: Tx['query'] }, now: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM idempotency_keys WHERE created_at < $1', [new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS)]);
  return rowCount ?? 0;
}
