import type { Pool } from '../../platform/db.js';
import { withTransaction } from '../../platform/db.js';
import { createSecretBox } from '../webhooks/secret-box.js';

/**
 * The LTI half of `assay reseal-secrets`: rewrites the sealed private key of
 * every tool key (current and retired) in the current format under the first
 * ASSAY_SECRET, with the key id bound in as additional data exactly as
 * tool-keys.ts seals it. Each key in its own short transaction under a row
 * lock; a second run changes nothing. The report names key ids only, never
 * key material.
 */
export interface ToolKeyResealReport {
  keys: number;
  resealed: number;
  current: number;
  /** Key ids whose private key no configured ASSAY_SECRET opens. */
  unopenable: string[];
}

export async function resealToolKeys(pool: Pool, serviceSecrets: readonly string[]): Promise<ToolKeyResealReport> {
  const box = createSecretBox(serviceSecrets);
  const report: ToolKeyResealReport = { keys: 0, resealed: 0, current: 0, unopenable: [] };
  const { rows } = await pool.query<{ kid: string }>('SELECT kid FROM lti_tool_keys ORDER BY created_at, kid');
  for (const { kid } of rows) {
    const outcome = await withTransaction(pool, async (tx) => {
      const { rows: found } = await tx.query<{ private_key_sealed: string }>('SELECT private_key_sealed FROM lti_tool_keys WHERE kid = $1 FOR UPDATE', [kid]);
      const row = found[0];
      if (!row) return 'gone';
      if (box.isCurrent(row.private_key_sealed)) return 'current';
      let pem: string;
      try {
        pem = box.open(row.private_key_sealed, `lti-tool-key:${kid}`);
      } catch {
        return 'unopenable';
      }
      await tx.query('UPDATE lti_tool_keys SET private_key_sealed = $2 WHERE kid = $1', [kid, box.seal(pem, `lti-tool-key:${kid}`)]);
      return 'resealed';
    });
    if (outcome === 'gone') continue;
    report.keys++;
    if (outcome === 'resealed') report.resealed++;
    else if (outcome === 'current') report.current++;
    else report.unopenable.push(kid);
  }
  return report;
}
