import type { Pool } from '../../platform/db.js';
import { withTransaction } from '../../platform/db.js';
import { createSecretBox } from './secret-box.js';

/**
 * `assay reseal-secrets`: rewrites every endpoint's sealed secrets (current
 * and, during a rotation overlap, previous) in the current format under the
 * first ASSAY_SECRET. Run it after putting a new secret first in
 * ASSAY_SECRET (keeping the old ones after it); once it reports nothing
 * left unopened, the old secrets can be removed from the list.
 *
 * Each endpoint is resealed in its own short transaction under a row lock,
 * so deliveries and rotations go on meanwhile and a second run is a no-op.
 */
export interface ResealReport {
  endpoints: number;
  /** Endpoints whose boxes were rewritten. */
  resealed: number;
  /** Endpoints already in the current format under the first secret. */
  current: number;
  /** Endpoints whose secret no configured ASSAY_SECRET opens: keep the old secrets until these are dealt with. */
  unopenable: string[];
}

const BATCH = 500;

export async function resealEndpointSecrets(pool: Pool, serviceSecrets: readonly string[]): Promise<ResealReport> {
  const box = createSecretBox(serviceSecrets);
  const report: ResealReport = { endpoints: 0, resealed: 0, current: 0, unopenable: [] };
  let after = '';
  for (;;) {
    const { rows } = await pool.query<{ id: string }>('SELECT id FROM webhook_endpoints WHERE id > $1 ORDER BY id LIMIT $2', [after, BATCH]);
    if (rows.length === 0) return report;
    after = rows.at(-1)!.id;
    for (const { id } of rows) {
      const outcome = await withTransaction(pool, async (tx) => {
        const { rows: found } = await tx.query<{ secret_enc: string; previous_secret_enc: string | null }>(
          'SELECT secret_enc, previous_secret_enc FROM webhook_endpoints WHERE id = $1 FOR UPDATE',
          [id],
        );
        const row = found[0];
        if (!row) return 'gone';
        const boxes = [row.secret_enc, row.previous_secret_enc];
        if (boxes.every((b) => b === null || box.isCurrent(b))) return 'current';
        let opened: Array<string | null>;
        try {
          opened = boxes.map((b) => (b === null ? null : box.open(b, id)));
        } catch {
          return 'unopenable';
        }
        const [secret, previous] = opened.map((s) => (s === null ? null : box.seal(s, id)));
        await tx.query('UPDATE webhook_endpoints SET secret_enc = $2, previous_secret_enc = $3 WHERE id = $1', [id, secret, previous]);
        return 'resealed';
      });
      if (outcome === 'gone') continue;
      report.endpoints++;
      if (outcome === 'resealed') report.resealed++;
      else if (outcome === 'current') report.current++;
      else report.unopenable.push(id);
    }
  }
}
