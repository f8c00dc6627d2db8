/**
 * How far behind the read replica is, in time, from WAL positions (pure; the
 * sampling loop is read-replica.ts).
 *
 * Why not `now() - pg_last_xact_replay_timestamp()` on the replica: that is
 * the age of the last transaction replayed, which on an idle primary grows
 * without bound although the replica has everything. Comparing positions is
 * exact instead: every check first reads the primary's `pg_current_wal_lsn()`
 * (time t) and keeps it, then the replica's `pg_last_wal_replay_lsn()`. A
 * replica that has replayed the position the primary had at t holds every
 * transaction committed before t; so its lag is at most `now - t` for the
 * newest kept sample it has reached. An idle primary keeps one position, the
 * replica reaches it, and the lag is the check's own round trip.
 *
 * The bound this gives is an upper bound with the check interval as its
 * resolution: a replica one write behind, whose last-reached sample is one
 * interval old, counts as one interval behind.
 */

/** A WAL position as PostgreSQL prints it (`16/B374D848`), as a number that compares. */
export function parseLsn(text: string): bigint {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (!m) throw new Error(`not a WAL position: ${JSON.stringify(text.slice(0, 40))}`);
  return (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`);
}

/** A WAL position back in PostgreSQL's form. */
export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** True when `text` is a WAL position (what a cookie may carry). */
export function isLsn(text: string): boolean {
  return /^[0-9A-Fa-f]{1,8}\/[0-9A-Fa-f]{1,8}$/.test(text);
}

export interface PrimarySample {
  /** When the primary's position was read (ms, the process's monotonic clock), taken before the query. */
  at: number;
  lsn: bigint;
}

/**
 * The primary's positions over the last `keepMs`, oldest first. The newest
 * sample older than the window is kept too: it is the one a replica far
 * behind is measured from.
 */
export class PrimaryPositions {
  private samples: PrimarySample[] = [];

  constructor(private readonly keepMs: number) {}

  add(sample: PrimarySample): void {
    this.samples.push(sample);
    const horizon = sample.at - this.keepMs;
    // Drop samples older than the window, but keep the newest of those (the lower bound for a replica that old).
    while (this.samples.length > 1 && this.samples[1]!.at <= horizon) this.samples.shift();
  }

  /**
   * The lag of a replica that has replayed `replayed`, at time `now`: `now`
   * minus the time of the newest sample it has reached. When it has reached
   * none, it is behind the oldest one kept: `now` minus that sample's time,
   * with `reachedNone` set (the true lag is larger still).
   */
  lagOf(replayed: bigint, now: number): { lagMs: number; reachedNone: boolean } {
    for (let i = this.samples.length - 1; i >= 0; i--) {
      const s = this.samples[i]!;
      if (s.lsn <= replayed) return { lagMs: Math.max(0, now - s.at), reachedNone: false };
    }
    const oldest = this.samples[0];
    return { lagMs: oldest ? Math.max(0, now - oldest.at) : Number.POSITIVE_INFINITY, reachedNone: true };
  }
}

export interface ReplicaState {
  /** False: the last check failed (replica or primary unreachable, or the replica not a standby). */
  up: boolean;
  /** The lag measured at `checkedAt` (ms); infinite when unknown. */
  lagMs: number;
  /** The replica's replay position at `checkedAt`; null when unknown. */
  replayed: bigint | null;
  /** When the last successful check finished (monotonic ms); null before the first. */
  checkedAt: number | null;
}

/**
 * Whether a read may go to the replica at `now`, for a session that must see
 * the primary's position `after` (null: any position). The lag measured at
 * the last check grows by the time since: the bound holds for the data read,
 * not just for the check.
 */
export function replicaServes(state: ReplicaState, maxLagMs: number, now: number, after: bigint | null): boolean {
  if (!state.up || state.checkedAt === null || state.replayed === null) return false;
  if (state.lagMs + (now - state.checkedAt) > maxLagMs) return false;
  return after === null || state.replayed >= after;
}
