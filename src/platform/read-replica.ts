import pg from 'pg';
import { isConnectionError, type Pool } from './db.js';
import { AppError } from './errors.js';
import { formatLsn, isLsn, parseLsn, PrimaryPositions, replicaServes, type ReplicaState } from './replica-lag.js';

/**
 * The read replica (ASSAY_DATABASE_REPLICA_URL, docs/production.md "Read
 * replica"): a second pool, on a hot standby, for reads that may be a little
 * behind — statistics, exports, the candidate report, the portal's lists.
 * Everything else uses the primary's pool (`ctx.pool`).
 *
 * Three rules keep a reader from noticing:
 * - The bound: a check every `checkMs` measures the replica's lag from WAL
 *   positions (replica-lag.ts); past `maxLagMs`, or when a check fails, reads
 *   go to the primary until a check finds the replica within the bound again.
 * - Never an error because the replica is away: a read on the replica that
 *   fails because it cannot be reached (or is cancelled by a conflict with
 *   replay) runs again on the primary, and the replica is left out until the
 *   next good check.
 * - Read-your-writes: a caller that must see a write passes the primary's WAL
 *   position taken after it (`writePosition()`); the replica serves it only
 *   once it has replayed that far (the portal keeps it in a cookie:
 *   portal/portal-reads.ts).
 */
export interface ReadPools {
  /** A pool for reads that may be a little behind: the replica when it may serve, else the primary. */
  forReads(after?: string | null): Pool;
  /** The primary's WAL position now (`pg_current_wal_lsn()`): what a later read of this caller must see. */
  writePosition(): Promise<string>;
  status(): ReplicaStatus;
  start(): void;
  /** Stops the checks and closes the replica's pool (not the primary's). */
  stop(): Promise<void>;
}

export interface ReplicaStatus {
  up: boolean;
  /** At the last check; null when unknown. */
  lagMs: number | null;
  /** The replica's replay position at the last successful check (`pg_last_wal_replay_lsn()`, e.g. `0/3000148`); null before it. */
  replayed: string | null;
  /** Whether a read without a position would go to the replica now. */
  serving: boolean;
  /** Reads routed since start, and reads that fell back to the primary after a failure on the replica. */
  reads: { replica: number; primary: number; fallbacks: number };
}

export interface ReadReplicaOptions {
  url: string;
  maxLagMs: number;
  checkMs: number;
  poolSize: number;
  statementTimeoutMs: number;
  log?: { info(o: object, m?: string): void; warn(o: object, m?: string): void };
  /** Monotonic ms; tests may replace it. */
  now?: () => number;
}

/** How long a read waits for a replica connection before it goes to the primary instead. */
const REPLICA_CONNECT_WAIT_MS = 1_000;

export function createReadPools(primary: Pool, opts: ReadReplicaOptions): ReadPools {
  const now = opts.now ?? (() => performance.now());
  const positions = new PrimaryPositions(opts.maxLagMs + 2 * opts.checkMs);
  const state: ReplicaState = { up: false, lagMs: Number.POSITIVE_INFINITY, replayed: null, checkedAt: null };
  const reads = { replica: 0, primary: 0, fallbacks: 0 };
  let reported: string | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  // State changes, not every check, go to the log; never the URL (it may hold a password).
  function report(reason: string | null, lagMs?: number) {
    const key = reason ?? 'serving';
    if (key === reported) return;
    reported = key;
    if (reason) opts.log?.warn({ reason, ...(lagMs !== undefined && Number.isFinite(lagMs) ? { lagMs: Math.round(lagMs) } : {}) }, 'read replica not used: reads go to the primary');
    else opts.log?.info({ maxLagMs: opts.maxLagMs }, 'read replica in use');
  }

  function markDown(reason: string) {
    state.up = false;
    report(reason);
  }

  const replica = new ReplicaPool(
    {
      connectionString: opts.url,
      max: opts.poolSize,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: REPLICA_CONNECT_WAIT_MS,
      // Named, so an operator (and the tests) can tell these connections apart in pg_stat_activity.
      application_name: 'assay-replica-reads',
      ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
    },
    primary,
    () => {
      reads.fallbacks++;
      markDown('a read on the replica failed');
    },
  );
  replica.on('error', () => undefined);

  async function check(): Promise<void> {
    const startedAt = now();
    try {
      const { rows } = await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      positions.add({ at: startedAt, lsn: parseLsn(rows[0]!.lsn) });
    } catch {
      // Without a new sample the lag is measured from older ones and grows with time: the bound still holds.
    }
    try {
      const probe = replica.probe<{ standby: boolean; replayed: string | null }>('SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed');
      const { rows } = await withTimeout(probe, Math.max(opts.checkMs * 2, REPLICA_CONNECT_WAIT_MS));
      const row = rows[0]!;
      // A promoted or misconfigured server is not a replica of this primary: its data may have left ours.
      if (!row.standby || row.replayed === null) return markDown('the replica URL names a server that is not a standby');
      const replayed = parseLsn(row.replayed);
      const measuredAt = now();
      const { lagMs } = positions.lagOf(replayed, measuredAt);
      Object.assign(state, { up: true, lagMs, replayed, checkedAt: measuredAt });
      report(lagMs > opts.maxLagMs ? 'the replica is behind the bound' : null, lagMs);
    } catch {
      markDown('the replica does not answer');
    }
  }

  function schedule() {
    if (stopped) return;
    timer = setTimeout(() => void check().finally(schedule), opts.checkMs);
    timer.unref();
  }

  return {
    forReads(after) {
      const position = after && isLsn(after) ? parseLsn(after) : null;
      if (replicaServes(state, opts.maxLagMs, now(), position)) {
        reads.replica++;
        return replica;
      }
      reads.primary++;
      return primary;
    },
    async writePosition() {
      const { rows } = await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      return rows[0]!.lsn;
    },
    status() {
      return {
        up: state.up,
        lagMs: state.checkedAt === null || !Number.isFinite(state.lagMs) ? null : state.lagMs,
        replayed: state.replayed === null ? null : formatLsn(state.replayed),
        serving: replicaServes(state, opts.maxLagMs, now(), null),
        reads: { ...reads },
      };
    },
    start() {
      // The first check at once: until it succeeds every read goes to the primary.
      void check().finally(schedule);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await replica.end().catch(() => undefined);
    },
  };
}

/**
 * The replica's pool: a pg.Pool (so readAll and the services see a pool),
 * whose promise-style queries and connections that fail because the replica
 * is away are taken by the primary instead. A statement that fails for its
 * own reasons fails as it would on the primary.
 */
class ReplicaPool extends pg.Pool {
  constructor(
    config: pg.PoolConfig,
    private readonly primary: Pool,
    private readonly onFailure: () => void,
  ) {
    super(config);
  }

  /** A query on the replica itself, never sent to the primary (the lag check). */
  probe<R extends pg.QueryResultRow>(text: string): Promise<pg.QueryResult<R>> {
    return super.query<R>(text);
  }

  override query(...args: unknown[]): any {
    const query = super.query as (...a: unknown[]) => unknown;
    // The callback style is pg's own (nothing of Assay's uses it): left as it is.
    if (typeof args[args.length - 1] === 'function') return query.apply(this, args);
    return (query.apply(this, args) as Promise<unknown>).catch((err: unknown) => {
      if (!replicaAway(err)) throw err;
      this.onFailure();
      return (this.primary.query as (...a: unknown[]) => Promise<unknown>)(...args);
    });
  }

  override connect(...args: unknown[]): any {
    const connect = super.connect as (...a: unknown[]) => unknown;
    // pg.Pool's own query() connects with a callback; its failure is handled in query() above.
    if (args.length > 0) return connect.apply(this, args);
    return (connect.apply(this) as Promise<pg.PoolClient>).catch((err: unknown) => {
      if (!replicaAway(err)) throw err;
      this.onFailure();
      return this.primary.connect();
    });
  }
}

/**
 * The replica cannot be reached, or cancelled the statement because replay
 * had to remove rows it was reading (SQLSTATE 40001 on a standby: a conflict
 * with recovery, which the same statement on the primary cannot meet).
 */
function replicaAway(err: unknown): boolean {
  return isConnectionError(err) || (err as { code?: string })?.code === '40001';
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  promise.catch(() => undefined); // a late failure after the timeout must not go unhandled
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

type ReadContext = { pool: Pool; reads?: ReadPools | null };

/** The pool for reads that may be a little behind (the replica when it may serve), or the primary's when no replica is configured. */
export function readPool(ctx: ReadContext, after?: string | null): Pool {
  return ctx.reads ? ctx.reads.forReads(after) : ctx.pool;
}

/**
 * A read that may be a little behind, except when what it looks for is not
 * there: a miss on the replica (a `not_found`, or a result `missing` says is
 * absent) is asked of the primary. An object created a moment ago (a test
 * imported then exported, an assignment completed then its report opened
 * from the webhook) is found; one that does not exist costs a second read.
 */
export async function readOrPrimary<T>(ctx: ReadContext, read: (db: Pool) => Promise<T>, missing: (value: T) => boolean = () => false): Promise<T> {
  const db = readPool(ctx);
  if (db === ctx.pool) return read(db);
  try {
    const value = await read(db);
    return missing(value) ? await read(ctx.pool) : value;
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') return read(ctx.pool);
    throw err;
  }
}

/** The read pools an API process runs with, checks started; null when ASSAY_DATABASE_REPLICA_URL is not set. */
export function startReadPools(
  config: { replica: { url: string | null; maxLagMs: number; checkMs: number }; dbPoolSize: number; dbStatementTimeoutMs: number },
  primary: Pool,
  log?: ReadReplicaOptions['log'],
): ReadPools | null {
  const { url, maxLagMs, checkMs } = config.replica;
  if (!url) return null;
  const reads = createReadPools(primary, { url, maxLagMs, checkMs, poolSize: config.dbPoolSize, statementTimeoutMs: config.dbStatementTimeoutMs, ...(log ? { log } : {}) });
  reads.start();
  return reads;
}
