import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../src/platform/embedded-db.js';

const run = promisify(execFile);

/**
 * Real PostgreSQL servers of the tests' own, made with the machine's
 * PostgreSQL binaries (Debian's postgresql-15 in /usr/lib/postgresql/N/bin):
 * a primary, and standbys by streaming replication (pg_basebackup), each in
 * its own data folder under the temp directory on a free port. They stand in
 * for the database hosts of a deployment: a test kills one with SIGKILL as a
 * host dies, promotes a standby, or reads from a replica.
 *
 * PostgreSQL refuses to run as root: as root (CI), the servers run as the
 * `postgres` user through runuser.
 */
export interface PgNode {
  readonly name: string;
  readonly port: number;
  readonly dataDir: string;
  /** A connection URL to `database` on this server. */
  url(database?: string): string;
  /** Starts the server (again) and waits until it accepts connections. */
  start(): Promise<void>;
  /** A clean, fast shutdown. */
  stop(): Promise<void>;
  /** SIGKILL to the postmaster (a dead host); its children exit when they see it gone. */
  kill(): Promise<void>;
  /** Promotes a standby to primary and waits until it accepts writes. */
  promote(): Promise<void>;
  /** Stops the server if running and removes its folder. */
  destroy(): Promise<void>;
}

export interface ClusterOptions {
  /** Standby names that must confirm a commit before it returns (synchronous_standby_names = 'FIRST n (…)'). */
  synchronousStandbys?: string[];
  /** Extra postgresql.conf lines. */
  settings?: Record<string, string | number>;
}

/** The folder of the newest PostgreSQL server binaries on the machine, or null when there are none. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((v) => /^\d+$/.test(v) && Number(v) >= 15 && fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0]!, 'bin') : null;
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL binary, as the postgres user when this process is root. */
async function pgBin(bin: string, args: string[]): Promise<string> {
  const dir = postgresBinDir();
  if (!dir) throw new Error('pg-cluster: no PostgreSQL server binaries (apt-get install -y postgresql-15)');
  const file = path.join(dir, bin);
  const { stdout } = asRoot ? await run('runuser', ['-u', 'postgres', '--', file, ...args]) : await run(file, args);
  return stdout;
}

function makeFolder(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `assay-pg-${name}-`));
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  fs.chmodSync(dir, 0o700);
  return dir;
}

function node(name: string, port: number, dataDir: string): PgNode {
  const logFile = path.join(dataDir, 'server.log');
  const self: PgNode = {
    name,
    port,
    dataDir,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async start() {
      // Right after kill() the dead postmaster's backends may still hold its shared memory for a moment
      // ("pre-existing shared memory block is still in use"): try again for a few seconds.
      for (let attempt = 1; ; attempt++) {
        try {
          await pgBin('pg_ctl', ['-D', dataDir, '-l', logFile, '-w', '-t', '60', 'start']);
          return;
        } catch (err) {
          if (attempt >= 20) {
            const tail = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n').slice(-8).join('\n') : '';
            throw new Error(`pg-cluster: ${name} did not start: ${(err as Error).message}\n${tail}`);
          }
          await sleep(250);
        }
      }
    },
    async stop() {
      if (fs.existsSync(path.join(dataDir, 'postmaster.pid'))) {
        await pgBin('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']).catch(() => undefined);
      }
    },
    async kill() {
      const pidFile = path.join(dataDir, 'postmaster.pid');
      const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGKILL');
      // The postmaster is gone at once; its backends notice and exit within moments. Wait until the port is free,
      // and until the dead postmaster has been reaped: while its pid answers (a zombie), a new postmaster takes
      // the lock file for a live one's and refuses to start.
      for (let i = 0; i < 100 && (await accepts(port)); i++) await sleep(100);
      for (let i = 0; i < 100 && processExists(pid); i++) await sleep(100);
    },
    async promote() {
      await pgBin('pg_ctl', ['-D', dataDir, '-w', '-t', '60', 'promote']);
      for (let i = 0; i < 300; i++) {
        if ((await inRecovery(self.url())) === false) return;
        await sleep(100);
      }
      throw new Error(`pg-cluster: ${name} did not leave recovery`);
    },
    async destroy() {
      await self.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return self;
}

/** A new primary, ready for standbys (WAL for streaming, trust from 127.0.0.1 for connections and replication). */
export async function startPrimary(name = 'primary', options: ClusterOptions = {}): Promise<PgNode> {
  const dataDir = makeFolder(name);
  const port = await freePort();
  await pgBin('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const sync = options.synchronousStandbys ?? [];
  const settings: Record<string, string | number> = {
    port,
    listen_addresses: "'127.0.0.1'",
    // Not the data folder: pg_basebackup would copy the socket (and warn about it).
    unix_socket_directories: "'/tmp'",
    wal_level: 'replica',
    max_wal_senders: 10,
    max_replication_slots: 10,
    hot_standby: 'on',
    // Standbys ask the primary for WAL they lag behind on; keep enough that a test standby never falls off.
    wal_keep_size: "'256MB'",
    max_connections: 200,
    // The tests kill the postmaster, not the machine: the OS page cache survives, so fsync buys nothing here
    // and costs seconds per test. What the tests check is what replication guarantees, not the disk.
    fsync: 'off',
    full_page_writes: 'off',
    shared_buffers: "'64MB'",
    ...(sync.length ? { synchronous_standby_names: `'FIRST ${sync.length} (${sync.join(', ')})'`, synchronous_commit: 'on' } : {}),
    ...options.settings,
  };
  fs.appendFileSync(path.join(dataDir, 'postgresql.conf'), `\n${Object.entries(settings).map(([k, v]) => `${k} = ${v}`).join('\n')}\n`);
  fs.appendFileSync(path.join(dataDir, 'pg_hba.conf'), '\nhost replication all 127.0.0.1/32 trust\n');
  const primary = node(name, port, dataDir);
  await primary.start();
  return primary;
}

/**
 * A hot standby of `primary` by streaming replication, named `name` (its
 * application_name, which synchronous_standby_names refers to). The
 * primary's settings come with the base backup, except its synchronous
 * standbys: `options.synchronousStandbys` are the ones this node waits for
 * once promoted (none by default: a promoted lone survivor must accept writes).
 */
export async function startStandby(primary: PgNode, name: string, options: Pick<ClusterOptions, 'synchronousStandbys'> = {}): Promise<PgNode> {
  const dataDir = makeFolder(name);
  const port = await freePort();
  // pg_basebackup needs an empty folder of its own.
  fs.rmSync(dataDir, { recursive: true, force: true });
  await pgBin('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', dataDir, '-X', 'stream', '--checkpoint=fast', '--no-sync']);
  fs.appendFileSync(
    path.join(dataDir, 'postgresql.auto.conf'),
    [
      '',
      `port = ${port}`,
      // A standby runs without synchronous standbys of its own until it is promoted and told its new peers.
      `synchronous_standby_names = '${(options.synchronousStandbys ?? []).length ? `FIRST ${options.synchronousStandbys!.length} (${options.synchronousStandbys!.join(', ')})` : ''}'`,
      `primary_conninfo = 'host=127.0.0.1 port=${primary.port} user=postgres application_name=${name}'`,
      // A promoted standby's former peers follow the newest timeline.
      "recovery_target_timeline = 'latest'",
      '',
    ].join('\n'),
  );
  fs.writeFileSync(path.join(dataDir, 'standby.signal'), '');
  if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', dataDir]);
  fs.chmodSync(dataDir, 0o700);
  const standby = node(name, port, dataDir);
  await standby.start();
  return standby;
}

/** Waits until every standby has replayed what `primary` has written so far. */
export async function waitForReplay(primary: PgNode, standbys: PgNode[], timeoutMs = 30_000): Promise<void> {
  const lsn = await oneValue<string>(primary.url(), 'SELECT pg_current_wal_lsn()::text AS v');
  for (const standby of standbys) {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const caught = await oneValue<boolean>(standby.url(), `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS v`);
      if (caught) break;
      if (Date.now() > until) throw new Error(`pg-cluster: ${standby.name} did not replay ${lsn} within ${timeoutMs} ms`);
      await sleep(50);
    }
  }
}

/** Creates `database` on the primary (standbys get it by replication). */
export async function createDatabase(primary: PgNode, database: string): Promise<void> {
  await oneValue(primary.url(), `CREATE DATABASE ${database}`);
}

async function inRecovery(url: string): Promise<boolean | null> {
  try {
    return await oneValue<boolean>(url, 'SELECT pg_is_in_recovery() AS v');
  } catch {
    return null;
  }
}

async function oneValue<T>(url: string, sql: string): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query(sql);
    return rows[0]?.v as T;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function accepts(port: number): Promise<boolean> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
