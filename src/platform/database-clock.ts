import type { Clock } from './clock.js';
import type { Pool } from './db.js';

/**
 * One clock for every process: the database's (docs/production.md "One
 * clock"). Attempt starts, deadlines and job run times decide what a
 * candidate gets, and they are compared across processes and with `now()`
 * in SQL; a host whose clock runs 90 s slow must not hand out 90 s less.
 *
 * Asking the database for every timestamp would cost a round trip per
 * request, so each process measures its offset to the database's clock (a
 * `clock_timestamp()` read, halfway through its round trip) at start and
 * every `refreshMs`, and tells time as its own monotonic clock plus that
 * offset. The error is half the round trip of the best sample (well under
 * a millisecond on a LAN), plus the host's drift between samples. A sample
 * whose round trip is much slower than the best one so far is not trusted
 * (a loaded pool), and a failed sample keeps the last offset.
 */
export interface DatabaseClock extends Clock {
  /** The database's clock minus this host's, ms. */
  offsetMs(): number;
  /** Measures once more (start() does it at once and then every refreshMs). */
  sync(): Promise<void>;
  start(): Promise<void>;
  stop(): void;
}

export function createDatabaseClock(pool: Pick<Pool, 'query'>, opts: { localNow?: () => number; refreshMs?: number; log?: { warn(o: object, m?: string): void } } = {}): DatabaseClock {
  // Monotonic: a step of the host's clock (an NTP correction) moves nothing until the next sample.
  const localNow = opts.localNow ?? (() => performance.timeOrigin + performance.now());
  const refreshMs = opts.refreshMs ?? 30_000;
  let offset = 0;
  let bestRoundTrip = Number.POSITIVE_INFINITY;
  let timer: NodeJS.Timeout | null = null;

  async function sample(): Promise<void> {
    const t0 = localNow();
    const { rows } = await pool.query<{ ms: number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms');
    const t1 = localNow();
    const roundTrip = t1 - t0;
    // Trust a sample whose round trip is within 4 ms or twice the best so far; the best one only slowly ages out.
    if (roundTrip > Math.max(4, bestRoundTrip * 2)) {
      bestRoundTrip *= 1.5;
      return;
    }
    bestRoundTrip = Math.min(bestRoundTrip, roundTrip);
    offset = Number(rows[0]!.ms) - (t0 + t1) / 2;
  }

  const clock: DatabaseClock = {
    now: () => new Date(localNow() + offset),
    offsetMs: () => offset,
    async sync() {
      await sample();
    },
    async start() {
      // The best of three at start: the first query may pay for the connection.
      for (let i = 0; i < 3; i++) await sample();
      timer = setInterval(() => {
        sample().catch((err) => opts.log?.warn({ err: (err as Error).message }, "could not read the database's clock; keeping the last offset"));
      }, refreshMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
  return clock;
}
