import pg from 'pg';

/**
 * The promotion half of a failover (`npx assay failover-watch`): one watcher
 * per primary/standby pair checks the primary every second and promotes the
 * standby (`pg_promote()`) once the primary has failed `failures` checks in
 * a row, and only if the standby has lost it too (its WAL receiver is not
 * streaming). That second condition keeps a watcher that is cut off from a
 * healthy primary (its own network path broken) from making a second
 * primary: the standby, which streams from the primary, is the other
 * witness. It makes one decision and returns: after a promotion the old
 * primary must be rebuilt as a standby of the new one (pg_rewind or a fresh
 * base backup) before a watcher runs again with the roles swapped. Run
 * exactly one watcher per pair (a single decider); it cannot fence the old
 * primary itself, so its host must not restart PostgreSQL as a primary on
 * its own (Assay also refuses to write to a revived primary on an older
 * timeline, see primary-hosts.ts). docs/production.md "Failover".
 *
 * With synchronous replication (`synchronous_commit = on` and the standby in
 * `synchronous_standby_names`) every commit the primary acknowledged was
 * flushed on the standby, and promotion replays all of it: nothing Assay
 * acknowledged is lost.
 */
export interface FailoverWatchOptions {
  primaryUrl: string;
  standbyUrl: string;
  /** Consecutive failed checks of the primary before promoting (3). */
  failures?: number;
  /** Between checks, ms (1000). */
  intervalMs?: number;
  /** One check's connect-and-answer limit, ms (1000). */
  checkTimeoutMs?: number;
  log?: (line: string) => void;
  /** Stops watching (the result is then `stopped`). */
  signal?: AbortSignal;
}

export type FailoverOutcome =
  | { outcome: 'promoted'; firstFailedAt: string; promotedAt: string; failedChecks: number; promoteMs: number }
  | { outcome: 'standby-already-primary'; at: string }
  | { outcome: 'stopped' };

interface HostAnswer {
  inRecovery: boolean;
  /** WAL receivers streaming from a primary (a standby's view of its primary). */
  streaming: number;
}

async function ask(url: string, timeoutMs: number): Promise<HostAnswer> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs, application_name: 'assay-failover-watch' });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ recovery: boolean; streaming: number }>(
      `SELECT pg_is_in_recovery() AS recovery, (SELECT count(*) FROM pg_stat_wal_receiver WHERE status = 'streaming')::int AS streaming`,
    );
    return { inRecovery: rows[0]!.recovery, streaming: rows[0]!.streaming };
  } finally {
    client.end().catch(() => undefined);
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

export async function watchAndPromote(opts: FailoverWatchOptions): Promise<FailoverOutcome> {
  const failures = opts.failures ?? 3;
  const intervalMs = opts.intervalMs ?? 1_000;
  const timeoutMs = opts.checkTimeoutMs ?? 1_000;
  const log = opts.log ?? (() => undefined);
  let failed = 0;
  let firstFailedAt: Date | null = null;
  while (!opts.signal?.aborted) {
    const started = Date.now();
    const primary = await ask(opts.primaryUrl, timeoutMs).catch((err: Error) => err);
    if (primary instanceof Error) {
      failed += 1;
      firstFailedAt ??= new Date(started);
      log(`primary check ${failed}/${failures} failed: ${primary.message}`);
    } else if (primary.inRecovery) {
      // Someone else promoted or the roles were swapped without this watcher: not its decision to make.
      throw new Error('the watched primary is in recovery (a standby): start the watcher with the current primary and standby');
    } else {
      if (failed > 0) log('primary answers again');
      failed = 0;
      firstFailedAt = null;
    }
    if (failed >= failures) {
      const standby = await ask(opts.standbyUrl, timeoutMs).catch((err: Error) => err);
      if (standby instanceof Error) {
        log(`the standby cannot be reached either (${standby.message}): not promoting`);
      } else if (!standby.inRecovery) {
        log('the standby is already a primary');
        return { outcome: 'standby-already-primary', at: new Date().toISOString() };
      } else if (standby.streaming > 0) {
        log('the standby still streams from the primary: the primary is up and only this watcher cannot reach it; not promoting');
      } else {
        const t0 = Date.now();
        await promote(opts.standbyUrl);
        const promotedAt = new Date();
        log(`promoted the standby in ${promotedAt.getTime() - t0} ms`);
        return { outcome: 'promoted', firstFailedAt: firstFailedAt!.toISOString(), promotedAt: promotedAt.toISOString(), failedChecks: failed, promoteMs: promotedAt.getTime() - t0 };
      }
    }
    await sleep(Math.max(0, intervalMs - (Date.now() - started)), opts.signal);
  }
  return { outcome: 'stopped' };
}

/** pg_promote(wait => true): returns once the standby has left recovery and accepts writes. */
async function promote(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, application_name: 'assay-failover-watch' });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ done: boolean }>('SELECT pg_promote(true, 60) AS done');
    if (!rows[0]!.done) throw new Error('the standby did not finish its promotion within 60 s');
  } finally {
    await client.end().catch(() => undefined);
  }
}
