import pg from 'pg';

/**
 * Several database hosts in one `DATABASE_URL`, libpq-style
 * (`postgres://user@db1:5432,db2:5432/assay`): a primary and its standbys,
 * of which Assay writes to whichever is the primary now. node-postgres
 * connects to one host only, so this is the part of libpq's
 * `target_session_attrs=read-write` Assay needs: every new connection goes to
 * the host found writable by the last probe, and a probe runs again when a
 * connection to that host fails or ends without Assay ending it, or a
 * statement is refused as read-only (`25006`: the host is a standby now).
 * After a failover the pool's connections to the dead primary break, the
 * requests on them answer 503 (they are retried), and the next connections
 * go to the promoted standby without a restart.
 *
 * A probe asks every host at once whether it is in recovery or read-only. Among several
 * writable hosts (an old primary that came back as a primary after its
 * standby was promoted: split brain) the one on the highest timeline wins,
 * which is the promoted one: each promotion starts a new timeline. The
 * timeline is read from the name of the current WAL file, which changes at
 * the promotion itself; `pg_control_checkpoint()` would only show it after
 * the first checkpoint on the new timeline, which may be minutes later.
 *
 * One locator per URL per process, shared by the request pool, the LISTEN
 * connections, readiness and migrations, so one failover costs one probe.
 */
export interface DatabaseHost {
  host: string;
  port: number;
}

export interface HostList {
  hosts: DatabaseHost[];
  /** The same URL naming one host only: what node-postgres parses. */
  urlFor(host: DatabaseHost): string;
}

/** The hosts of a multi-host URL, or null for a URL naming one host (which keeps node-postgres's own handling). */
export function parseHostList(connectionString: string): HostList | null {
  const m = /^(postgres(?:ql)?:\/\/)(?:([^@/?#]*)@)?([^/?#]*)(.*)$/s.exec(connectionString);
  if (!m || !m[3]!.includes(',')) return null;
  const [, scheme, userInfo, hostPart, rest] = m;
  const hosts = hostPart!.split(',').map((entry) => {
    // [ipv6]:port, host:port, or a host alone (port 5432).
    const h = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry.trim());
    if (!h) throw new Error('a host in the database URL is not host[:port]');
    return { host: h[1]!.replace(/^\[|\]$/g, ''), port: h[2] ? Number(h[2]) : 5432 };
  });
  const prefix = `${scheme}${userInfo !== undefined ? `${userInfo}@` : ''}`;
  return {
    hosts,
    urlFor: ({ host, port }) => `${prefix}${host.includes(':') ? `[${host}]` : host}:${port}${rest}`,
  };
}

/** A connection error for "no host is writable": SQLSTATE class 08, which isConnectionError (db.ts) answers 503. */
export class NoWritableHostError extends Error {
  readonly code = '08001';
}

export interface HostState {
  host: DatabaseHost;
  /** null: did not answer. */
  writable: boolean | null;
  timeline: number | null;
}

export interface PrimaryLocator {
  readonly hosts: HostList;
  /** The writable host: the cached one, or a probe's answer. Rejects with NoWritableHostError when none is. */
  primary(): Promise<DatabaseHost>;
  /** Forgets `host` as the primary (a connection to it failed); the next primary() probes. */
  invalidate(host: DatabaseHost): void;
  /** Every host's state, asked now. */
  probe(): Promise<HostState[]>;
}

/** How long a probe waits for one host to connect and answer. */
const PROBE_TIMEOUT_MS = 2_000;
/** After a probe found no writable host, callers within this share its answer instead of probing again. */
const NONE_WRITABLE_HOLD_MS = 200;

// Writable as libpq's read-write means it: not in recovery, and not fenced read-only (default_transaction_read_only,
// which an operator sets on the old primary before a planned switchover).
const PROBE_SQL = `SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on' AS recovery,
  CASE WHEN pg_is_in_recovery() THEN NULL
       ELSE ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int END AS timeline`;

async function askHost(hosts: HostList, host: DatabaseHost, timeoutMs: number): Promise<HostState> {
  const client = new pg.Client({
    connectionString: hosts.urlFor(host),
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    application_name: 'assay-primary-probe',
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ recovery: boolean; timeline: number | null }>(PROBE_SQL);
    return { host, writable: !rows[0]!.recovery, timeline: rows[0]!.timeline };
  } catch {
    return { host, writable: null, timeline: null };
  } finally {
    client.end().catch(() => undefined);
  }
}

/** The host to write to: writable, on the highest timeline (first listed on a tie). */
export function choosePrimary(states: HostState[]): DatabaseHost | null {
  let best: HostState | null = null;
  for (const s of states) {
    if (s.writable !== true) continue;
    if (!best || (s.timeline ?? 0) > (best.timeline ?? 0)) best = s;
  }
  return best?.host ?? null;
}

const sameHost = (a: DatabaseHost, b: DatabaseHost) => a.host === b.host && a.port === b.port;

export function createPrimaryLocator(hosts: HostList, opts: { probeTimeoutMs?: number } = {}): PrimaryLocator {
  const timeoutMs = opts.probeTimeoutMs ?? PROBE_TIMEOUT_MS;
  let current: DatabaseHost | null = null;
  let probing: Promise<DatabaseHost> | null = null;
  let noneUntil = 0;
  let noneError: Error | null = null;

  const probe = () => Promise.all(hosts.hosts.map((h) => askHost(hosts, h, timeoutMs)));

  return {
    hosts,
    probe,
    primary() {
      if (current) return Promise.resolve(current);
      if (noneError && Date.now() < noneUntil) return Promise.reject(noneError);
      // Concurrent connects during a failover share one probe.
      probing ??= probe()
        .then((states) => {
          const chosen = choosePrimary(states);
          if (!chosen) {
            const named = hosts.hosts.map((h) => `${h.host}:${h.port}`).join(', ');
            noneError = new NoWritableHostError(`no writable database host among ${named}`);
            noneUntil = Date.now() + NONE_WRITABLE_HOLD_MS;
            throw noneError;
          }
          current = chosen;
          return chosen;
        })
        .finally(() => {
          probing = null;
        });
      return probing;
    },
    invalidate(host) {
      if (current && sameHost(current, host)) current = null;
    },
  };
}

const locators = new Map<string, PrimaryLocator>();

/** The process's locator for a multi-host URL (null for a single host). */
export function primaryLocatorFor(connectionString: string): PrimaryLocator | null {
  const existing = locators.get(connectionString);
  if (existing) return existing;
  const hosts = parseHostList(connectionString);
  if (!hosts) return null;
  const locator = createPrimaryLocator(hosts);
  locators.set(connectionString, locator);
  return locator;
}

/** Statement errors that mean "this host is not the primary (any more)". */
const NOT_PRIMARY_CODES = new Set(['25006', '57P01', '57P02', '57P03']);

/**
 * A node-postgres Client class whose connections go to the locator's current
 * primary: `new pg.Pool({ Client })` for a pool, or `new Client(config)`.
 */
export function primaryClientClass(locator: PrimaryLocator): typeof pg.Client {
  const made = clientClasses.get(locator);
  if (made) return made;
  class PrimaryClient extends pg.Client {
    private target: DatabaseHost | null = null;

    constructor(config?: string | pg.ClientConfig) {
      const given = typeof config === 'string' ? { connectionString: config } : { ...config };
      // node-postgres cannot parse a list of hosts: give it the first; connect() sets the real one.
      super({ ...given, connectionString: locator.hosts.urlFor(locator.hosts.hosts[0]!) });
      const self = this as unknown as { _ending?: boolean; connection: { on(e: string, f: (m: { code?: string }) => void): void } };
      this.on('end', () => {
        // Ended by the server or the network, not by Assay: the host may be gone.
        if (!self._ending && this.target) locator.invalidate(this.target);
      });
      self.connection.on('errorMessage', (message) => {
        if (message.code && NOT_PRIMARY_CODES.has(message.code) && this.target) {
          locator.invalidate(this.target);
          // A connection to a standby is of no use for writes: the pool drops it when it comes back.
          if (message.code === '25006') setImmediate(() => void this.end().catch(() => undefined));
        }
      });
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: (err: Error | null, client?: pg.Client) => void): void;
    override connect(callback?: (err: Error | null, client?: pg.Client) => void): Promise<pg.Client> | void {
      const connecting = locator.primary().then(async (target) => {
        this.target = target;
        const self = this as unknown as { host: string; port: number };
        self.host = target.host;
        self.port = target.port;
        try {
          return await super.connect();
        } catch (err) {
          locator.invalidate(target);
          throw err;
        }
      });
      if (!callback) return connecting;
      connecting.then(
        (client) => callback(null, client),
        (err: Error) => callback(err),
      );
    }
  }
  clientClasses.set(locator, PrimaryClient as unknown as typeof pg.Client);
  return PrimaryClient as unknown as typeof pg.Client;
}

const clientClasses = new WeakMap<PrimaryLocator, typeof pg.Client>();

/** A client for `config.connectionString` (to its current primary when the URL names several hosts). */
export function newDatabaseClient(config: pg.ClientConfig): pg.Client {
  const locator = config.connectionString ? primaryLocatorFor(config.connectionString) : null;
  if (!locator) return new pg.Client(config);
  return new (primaryClientClass(locator))(config);
}

/** The Client class a pool on `connectionString` should use. */
export function clientClassFor(connectionString: string): typeof pg.Client {
  const locator = primaryLocatorFor(connectionString);
  return locator ? primaryClientClass(locator) : pg.Client;
}
