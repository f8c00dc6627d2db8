import type { Queryable } from '../../platform/db.js';
import { EVENT_RETENTION_MS } from '../lifecycle/event-types.js';

const BATCH = 5000;

/**
 * Deletes events older than the 30-day retention, with their webhook
 * deliveries and attempts (ON DELETE CASCADE), in batches so a large backlog
 * never holds long locks. Attempts are never older than their event, so this
 * purges them too. Returns how many events went.
 */
export async function purgeOldEvents(db: Queryable, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - EVENT_RETENTION_MS);
  let total = 0;
  for (;;) {
    const { rowCount } = await db.query(
      'DELETE FROM events WHERE id IN (SELECT id FROM events WHERE created_at < $1 LIMIT $2)',
      [cutoff, BATCH],
    );
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < BATCH) return total;
  }
}
