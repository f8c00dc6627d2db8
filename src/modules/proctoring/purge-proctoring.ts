import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db.js';
import { storageFor } from '../../platform/storage/storage.js';
import { proctoringPrefix } from './store-segment.js';

/**
 * Retention (ASSAY_PROCTORING_RETENTION_DAYS, default 30): an attempt's
 * recording, snapshots and flags are deleted that many days after it was
 * submitted, all together, so a timeline is never half there. Files go
 * first, then the rows: a crash in between leaves rows whose files are gone
 * (the next run deletes them), never files that no row leads to. The
 * session row stays, marked purged, with its counts: the partner read keeps
 * showing how many flags there were and whether they were reviewed.
 */
const BATCH = 50;

export async function purgeExpiredProctoring(ctx: AppContext): Promise<{ attempts: number; files: number }> {
  const now = ctx.clock.now();
  const cutoff = new Date(now.getTime() - ctx.config.proctoringRetentionDays * 24 * 3600_000);
  const storage = storageFor(ctx.config);
  let attempts = 0;
  let files = 0;
  for (;;) {
    // A session is created during its attempt (or at most minutes after submission), so created_at < cutoff
    // narrows the scan through the partial index before the join checks the submission itself.
    const { rows } = await ctx.pool.query<{ assignment_id: string; institution_id: string }>(
      `SELECT s.assignment_id, s.institution_id FROM proctoring_sessions s
         JOIN attempts a ON a.assignment_id = s.assignment_id
        WHERE s.purged_at IS NULL AND s.created_at < $1 AND a.submitted_at < $1
        ORDER BY s.created_at LIMIT $2`,
      [cutoff, BATCH],
    );
    for (const r of rows) {
      files += await storage.deletePrefix(proctoringPrefix(r.institution_id, r.assignment_id));
      await withTransaction(ctx.pool, async (tx) => {
        const params = [r.assignment_id, r.institution_id];
        await tx.query('SELECT 1 FROM proctoring_sessions WHERE assignment_id = $1 AND institution_id = $2 FOR UPDATE', params);
        await tx.query('DELETE FROM proctoring_snapshots WHERE assignment_id = $1 AND institution_id = $2', params);
        await tx.query('DELETE FROM recording_segments WHERE assignment_id = $1 AND institution_id = $2', params);
        await tx.query('DELETE FROM proctoring_flags WHERE assignment_id = $1 AND institution_id = $2', params);
        await tx.query(
          'UPDATE proctoring_sessions SET purged_at = $3, interrupted_flag_id = NULL WHERE assignment_id = $1 AND institution_id = $2',
          [...params, now],
        );
      });
      attempts++;
    }
    if (rows.length < BATCH) return { attempts, files };
  }
}
