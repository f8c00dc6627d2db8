import type { Pool } from '../../platform/db.js';
import { dropPartitionsBefore } from '../../platform/partitions.js';
import { EVENT_RETENTION_MS } from '../lifecycle/event-types.js';

/**
 * The 30-day retention of events, with their webhook deliveries and delivery
 * attempts, by dropping whole monthly partitions (platform/partitions.ts):
 * a partition goes once its whole month is past the retention, so no row is
 * deleted one by one and nothing is left to vacuum. An event past 30 days in
 * the month that straddles the cutoff stays on disk until its month goes (at
 * most a month longer) but is never shown: every read of events filters on
 * the retention, and a delivery or attempt is reached only through its event
 * or its endpoint's log. A delivery shares its event's created_at, so it
 * goes with its event's month. An attempt goes with the month it was made
 * in: one made in a later month than its delivery outlives the delivery by
 * at most that month, unreachable (attempts are read only through their
 * delivery). Returns the partitions dropped.
 */
export async function purgeOldEvents(pool: Pool, now: Date): Promise<string[]> {
  const cutoff = new Date(now.getTime() - EVENT_RETENTION_MS);
  const dropped: string[] = [];
  // Children first: a delivery never outlives its event's month.
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'events']) dropped.push(...(await dropPartitionsBefore(pool, table, cutoff)));
  return dropped;
}
