import pg from 'pg';
import { clientClassFor } from './primary-hosts.js';
import { rememberSessionConnection, withoutNamedStatements } from './session-connection.js';

/** Anything that can run a query: the pool or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;
export type Pool = pg.Pool;
export type Tx = pg.PoolClient;

// Timestamps come back as Date (default); bigint counts as numbers.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

export interface PoolLimits {
  /** How long a query waits for a free connection before it fails (the request then answers 503); 0 waits for ever. */
  connectWaitMs?: number;
  /** PostgreSQL's statement_timeout for every statement on the pool's connections; 0 for none. */
  statementTimeoutMs?: number;
  /**
   * Set when `connectionString` is a transaction-mode pooler (ASSAY_DATABASE_SESSION_URL): session work connects
   * here instead, and the pool sends no named prepared statements (platform/session-connection.ts).
   */
  sessionConnectionString?: string;
}

export function createPool(connectionString: string, max = 10, limits: PoolLimits = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    // A URL naming several hosts (a primary and its standbys): each connection goes to the current primary.
    // Behind a transaction-mode pooler, statements go unnamed.
    Client: limits.sessionConnectionString ? withoutNamedStatements(clientClassFor(connectionString)) : clientClassFor(connectionString),
    max,
    idleTimeoutMillis: 30_000,
    // A saturated pool or a database that does not answer the connect must not queue a request for ever:
    // the wait fails with "timeout exceeded when trying to connect", which the error handler answers 503.
    connectionTimeoutMillis: limits.connectWaitMs ?? 0,
    ...(limits.statementTimeoutMs ? { statement_timeout: limits.statementTimeoutMs } : {}),
  });
  if (limits.sessionConnectionString) rememberSessionConnection(pool, limits.sessionConnectionString);
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * Runs `fn` in a transaction and commits, or rolls back on any throw.
 * Serialization failures and deadlocks are retried a few times, since the
 * callers' work is written to be repeatable inside one transaction.
 */
export async function withTransaction<T>(pool: pg.Pool, fn: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  const outer = joined.get(pool);
  if (outer) return withSavepoint(outer, fn);
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken = false;
    // A checked-out client has no error listener of the pool's: if the server goes away between two
    // queries (a restart), the client emits 'error', which unheard would crash the process.
    const onError = () => {
      broken = true;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      const code = (err as { code?: string }).code;
      if ((code === '40001' || code === '40P01') && attempt < 5) continue;
      throw err;
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  }
}

const joined = new WeakMap<object, pg.PoolClient>();

/**
 * A stand-in for the pool whose queries and transactions run inside `tx`:
 * a caller passes it to a service that opens its own transaction, so the
 * service's change and the caller's own writes (an audit entry, say) commit
 * together or not at all. The service's transaction becomes a savepoint.
 */
export function joinTransaction(tx: pg.PoolClient): pg.Pool {
  const stand = {
    query: (...args: unknown[]) => (tx.query as (...a: unknown[]) => unknown)(...args),
    connect: () => Promise.reject(new Error('joinTransaction: a joined pool has no connections of its own')),
    options: {},
  };
  joined.set(stand, tx);
  return stand as unknown as pg.Pool;
}

/**
 * Runs independent reads at once on a pool (each takes its own connection),
 * one after another on a transaction's client or a joined pool, where
 * overlapping queries on one connection are queued by pg anyway (and
 * deprecated by it).
 */
export async function readAll<T extends readonly unknown[]>(db: Queryable, reads: { [K in keyof T]: () => Promise<T[K]> }): Promise<T> {
  if (db instanceof pg.Pool && !joined.has(db)) return (await Promise.all(reads.map((read) => read()))) as unknown as T;
  const results: unknown[] = [];
  for (const read of reads) results.push(await read());
  return results as unknown as T;
}

let savepoints = 0;

async function withSavepoint<T>(tx: pg.PoolClient, fn: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  const name = `joined_${++savepoints}`;
  await tx.query(`SAVEPOINT ${name}`);
  try {
    const result = await fn(tx);
    await tx.query(`RELEASE SAVEPOINT ${name}`);
    return result;
  } catch (err) {
    await tx.query(`ROLLBACK TO SAVEPOINT ${name}`).catch(() => undefined);
    throw err;
  }
}

/** True when the error is PostgreSQL being unreachable rather than a query's own fault. */
export function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  const message = (err as { message?: string })?.message ?? '';
  if (/Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED/i.test(message)) {
    return true;
  }
  if (!code) return false;
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'].includes(code) ||
    code.startsWith('08') || // connection exception
    code === '57P01' || // admin_shutdown
    code === '57P02' ||
    code === '57P03' || // cannot_connect_now
    code === '25006' // read_only_sql_transaction: a host that is a standby now (primary-hosts.ts finds the new primary)
  );
}
