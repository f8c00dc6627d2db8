import type pg from 'pg';
import { newDatabaseClient } from './primary-hosts.js';

/**
 * Readiness on a connection of its own (docs/production.md "Health and logs"): the
 * check never queues behind the request pool, so a saturated pool answers
 * its requests 503 while the balancer keeps the instance in (every instance
 * failing its check at once is the outage the check should prevent). It
 * fails only when the database itself does not answer within the timeout.
 *
 * One connection, opened on first use and again after it breaks; probes that
 * arrive while one is in flight share its answer, so a flood of checks costs
 * one query. Also reports the clock skew between this process and the
 * database (whose `now()` decides deadlines).
 */
export type Readiness =
  | { status: 'ready'; database: 'up'; clockSkewMs: number }
  | { status: 'unavailable'; database: 'down'; reason: string };

export interface ReadinessProbe {
  check(): Promise<Readiness>;
  close(): Promise<void>;
}

/** Over this, readiness still answers ready (deadlines come from the database) but the log says to fix the host's clock, once a minute. */
const CLOCK_SKEW_WARN_MS = 1_000;

export function createReadinessProbe(
  connectionString: string,
  opts: { timeoutMs?: number; now?: () => number; log?: { warn(obj: object, msg: string): void } } = {},
): ReadinessProbe {
  const timeoutMs = opts.timeoutMs ?? 1_000;
  const now = opts.now ?? Date.now;
  let lastSkewWarning = Number.NEGATIVE_INFINITY;
  const warnSkew = (clockSkewMs: number) => {
    if (Math.abs(clockSkewMs) <= CLOCK_SKEW_WARN_MS || Date.now() - lastSkewWarning < 60_000) return;
    lastSkewWarning = Date.now();
    opts.log?.warn({ clockSkewMs }, "this host's clock differs from the database's by more than 1 s: synchronise it (NTP, chrony); see docs/production.md");
  };
  let client: pg.Client | null = null;
  let connecting: Promise<pg.Client> | null = null;
  let inFlight: Promise<Readiness> | null = null;
  let closed = false;

  const drop = (c: pg.Client) => {
    if (client === c) client = null;
    c.end().catch(() => undefined);
  };

  async function connection(): Promise<pg.Client> {
    if (client) return client;
    connecting ??= (async () => {
      const c = newDatabaseClient({ connectionString, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs, application_name: 'assay-readiness' });
      // A broken connection (database restart) is dropped and opened again on the next check.
      c.on('error', () => drop(c));
      try {
        await c.connect();
      } catch (err) {
        c.end().catch(() => undefined);
        throw err;
      }
      client = c;
      return c;
    })().finally(() => {
      connecting = null;
    });
    return connecting;
  }

  async function probe(): Promise<Readiness> {
    let c: pg.Client | null = null;
    const started = now();
    try {
      const deadline = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), timeoutMs).unref());
      c = await Promise.race([connection(), deadline]);
      const { rows } = await Promise.race([c.query<{ ms: number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms'), deadline]);
      const ended = now();
      // The database's clock against ours at the middle of the round trip.
      const clockSkewMs = Math.round(Number(rows[0]!.ms) - (started + ended) / 2);
      warnSkew(clockSkewMs);
      return { status: 'ready', database: 'up', clockSkewMs };
    } catch (err) {
      if (c) drop(c);
      const message = (err as Error).message;
      return { status: 'unavailable', database: 'down', reason: message === 'timeout' ? `the database did not answer within ${timeoutMs} ms` : 'the database cannot be reached' };
    }
  }

  return {
    check() {
      if (closed) return Promise.resolve({ status: 'unavailable', database: 'down', reason: 'the process is stopping' });
      inFlight ??= probe().finally(() => {
        inFlight = null;
      });
      return inFlight;
    },
    async close() {
      closed = true;
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
