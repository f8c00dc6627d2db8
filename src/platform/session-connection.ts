import pg from 'pg';

/**
 * The pool behind a transaction-mode pooler (PgBouncer `pool_mode =
 * transaction`, docs/production.md "Through PgBouncer"): each transaction,
 * and each statement outside one, may run on a different server connection,
 * so nothing may rely on a session surviving from one to the next.
 *
 * - What needs a session connects elsewhere, to ASSAY_DATABASE_SESSION_URL
 *   (PostgreSQL itself or a session-mode pooler): LISTEN (a notification is
 *   delivered to the server session that listened), the migrations' session
 *   advisory lock and their `SET statement_timeout = 0`, the readiness
 *   check's connection, and the webhook dispatcher's connections (their
 *   `synchronous_commit=off` is a session option). `sessionConnectionString`
 *   gives that address for a pool; without a session URL it is the pool's own.
 * - Named prepared statements are off on such a pool: pg prepares a name
 *   once per client connection and afterwards sends only its name, which
 *   the next server connection does not know ("prepared statement … does
 *   not exist"); PgBouncer 1.18 does not track them. The statement is then
 *   parsed each time (unnamed), as PostgreSQL does for any unnamed query.
 * - statement_timeout cannot ride on the connection either: pg sends it as a
 *   startup parameter, which the pooler must be told to ignore
 *   (`ignore_startup_parameters = statement_timeout`), so the pooler or the
 *   role sets it on the server connections (`connect_query`, or ALTER ROLE …
 *   SET statement_timeout); `statementTimeoutMismatch` checks it at boot.
 */
const sessionUrls = new WeakMap<object, string>();

export function rememberSessionConnection(pool: pg.Pool, connectionString: string): void {
  sessionUrls.set(pool, connectionString);
}

/** Where this pool's session work connects: ASSAY_DATABASE_SESSION_URL, or the pool's own address. */
export function sessionConnectionString(pool: pg.Pool): string {
  return sessionUrls.get(pool) ?? (pool as unknown as { options: { connectionString: string } }).options.connectionString;
}

const unnamedClasses = new WeakMap<typeof pg.Client, typeof pg.Client>();

/**
 * `Base` (pg's Client, or the multi-host one of platform/primary-hosts.ts)
 * sending every statement unnamed: the pool's Client behind a transaction-mode pooler.
 */
export function withoutNamedStatements(Base: typeof pg.Client): typeof pg.Client {
  const made = unnamedClasses.get(Base);
  if (made) return made;
  const namedQuery = Base.prototype.query;
  class ClientWithoutNamedStatements extends Base {}
  ClientWithoutNamedStatements.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    // A Submittable (a pg-cursor) is passed through as it is: it names no statement.
    if (config && typeof config === 'object' && 'name' in config && typeof (config as { submit?: unknown }).submit !== 'function') {
      const { name: _unnamed, ...unnamed } = config as Record<string, unknown>;
      config = unnamed;
    }
    return (namedQuery as (...a: unknown[]) => unknown).call(this, config, ...rest);
  } as typeof namedQuery;
  unnamedClasses.set(Base, ClientWithoutNamedStatements);
  return ClientWithoutNamedStatements;
}

/**
 * Null when statements on the pool run under `expectedMs` of statement_timeout (0: none expected), else
 * what to fix. Through a pooler that ignores the startup parameter, the value is whatever the server
 * connections were given; asked on a few connections at once, since each may be a different one.
 */
export async function statementTimeoutMismatch(pool: Pick<pg.Pool, 'query'>, expectedMs: number): Promise<string | null> {
  const read = () => pool.query<{ ms: number }>(`SELECT setting::int AS ms FROM pg_settings WHERE name = 'statement_timeout'`);
  const seen = new Set((await Promise.all([read(), read(), read()])).map((r) => Number(r.rows[0]!.ms)));
  const wrong = [...seen].filter((ms) => ms !== expectedMs);
  if (wrong.length === 0) return null;
  return (
    `statement_timeout through DATABASE_URL is ${wrong.join(', ')} ms, not ASSAY_DB_STATEMENT_TIMEOUT_MS (${expectedMs} ms): ` +
    "a transaction-mode pooler drops the startup parameter, so set it on the pooler's server connections " +
    "(PgBouncer: connect_query = 'SET statement_timeout = …' in the database's entry) or on the role (ALTER ROLE … SET statement_timeout); see docs/production.md"
  );
}
