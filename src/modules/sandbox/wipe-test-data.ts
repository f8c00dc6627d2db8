import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db.js';
import { storageFor } from '../../platform/storage/storage.js';
import { expireJobKey } from '../assignments/expire-job.js';
import { autoSubmitKey } from '../attempts/timing.js';
import { proctoringPrefix } from '../proctoring/store-segment.js';
import { answerFilesPrefix } from '../attempts/answer-files.js';

/**
 * Deleting test-mode data: by the partner (`DELETE /test-data`, everything of
 * its institution's test mode) and by the recurring purge (test-mode data of
 * every institution older than 30 days).
 *
 * What goes: test-mode assignments with everything hanging off them (attempts,
 * answers, uploaded answer files, marks, proctoring flags, recordings and snapshots, student
 * sessions, their events with webhook deliveries and attempts, their
 * idempotency records and pending jobs), and test-mode events without an
 * assignment (`webhook.test`, endpoint notices). What stays: test-mode
 * webhook endpoints (configuration, not data: a developer keeps receiving
 * after a wipe) and users (shared with live mode, keyed by externalUserId).
 * Trial versions ("Try it" snapshots) no assignment uses any more go too.
 *
 * Batches of a few hundred assignments, each in its own transaction, so a
 * large sandbox never holds long locks. Recording files go before the rows
 * (as in the proctoring retention purge): a crash in between leaves rows
 * whose files are gone, which the next run deletes, never orphan files.
 */
export const TEST_DATA_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
const BATCH = 200;

export interface WipeCounts {
  assignments: number;
  events: number;
}

async function deleteTestData(ctx: AppContext, scope: { institutionId: string | null; before: Date }): Promise<WipeCounts> {
  const storage = storageFor(ctx.config);
  const counts: WipeCounts = { assignments: 0, events: 0 };
  for (;;) {
    const { rows } = await ctx.pool.query<{ id: string; institution_id: string }>(
      `SELECT id, institution_id FROM assignments
        WHERE NOT livemode AND ($1::text IS NULL OR institution_id = $1) AND created_at < $2
        ORDER BY created_at LIMIT $3`,
      [scope.institutionId, scope.before, BATCH],
    );
    if (rows.length === 0) break;
    for (const r of rows) {
      await storage.deletePrefix(proctoringPrefix(r.institution_id, r.id));
      await storage.deletePrefix(answerFilesPrefix(r.institution_id, r.id));
    }
    const ids = rows.map((r) => r.id);
    await withTransaction(ctx.pool, async (tx) => {
      const jobKeys = ids.flatMap((id) => [expireJobKey(id), autoSubmitKey(id)]);
      await tx.query('DELETE FROM jobs WHERE unique_key = ANY ($1)', [jobKeys]);
      const events = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE assignment_id = ANY ($1)', [ids]);
      // Everything else goes with the assignment rows (ON DELETE CASCADE). `NOT livemode` again: never a live row, whatever was read.
      const deleted = await tx.query('DELETE FROM assignments WHERE id = ANY ($1) AND NOT livemode', [ids]);
      counts.events += events.rows[0]!.n;
      counts.assignments += deleted.rowCount ?? 0;
    });
    if (rows.length < BATCH) break;
  }
  const loose = await ctx.pool.query(
    `DELETE FROM events WHERE NOT livemode AND assignment_id IS NULL AND ($1::text IS NULL OR institution_id = $1) AND created_at < $2`,
    [scope.institutionId, scope.before],
  );
  counts.events += loose.rowCount ?? 0;
  // "Try it" snapshots (trial versions, docs/authoring.md) go with the last test-mode assignment that used them.
  await ctx.pool.query(
    `DELETE FROM test_versions tv
      WHERE tv.trial AND tv.created_at < $2
        AND ($1::text IS NULL OR EXISTS (SELECT 1 FROM tests t WHERE t.id = tv.test_id AND t.owner_institution_id = $1))
        AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.test_version_id = tv.id)`,
    [scope.institutionId, scope.before],
  );
  await ctx.pool.query(`DELETE FROM idempotency_keys WHERE NOT livemode AND ($1::text IS NULL OR institution_id = $1) AND created_at < $2`, [
    scope.institutionId,
    scope.before,
  ]);
  return counts;
}

/** `DELETE /test-data`: every test-mode assignment and event of the institution, as of now. */
export function wipeTestData(ctx: AppContext, institutionId: string): Promise<WipeCounts> {
  return deleteTestData(ctx, { institutionId, before: new Date(ctx.clock.now().getTime() + 1) });
}

/** The recurring purge: test-mode assignments created, and test-mode events written, more than 30 days ago. */
export function purgeOldTestData(ctx: AppContext): Promise<WipeCounts> {
  return deleteTestData(ctx, { institutionId: null, before: new Date(ctx.clock.now().getTime() - TEST_DATA_RETENTION_MS) });
}
