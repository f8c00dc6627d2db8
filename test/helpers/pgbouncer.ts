import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/platform/embedded-db.js';
import { componentAvailable } from './components.js';

/**
 * A real PgBouncer (/usr/sbin/pgbouncer, or ASSAY_PGBOUNCER_PATH) for tests:
 * its own configuration in a temporary folder, on a free loopback port, in
 * front of the test PostgreSQL, started by the test and stopped by it.
 * Missing locally, its tests are skipped with a loud notice; under CI a
 * failure (test/helpers/components.ts).
 */
export const PGBOUNCER_PATH = process.env.ASSAY_PGBOUNCER_PATH || '/usr/sbin/pgbouncer';
export const hasPgbouncer = componentAvailable('PgBouncer', fs.existsSync(PGBOUNCER_PATH), 'apt-get install -y pgbouncer, or set ASSAY_PGBOUNCER_PATH');

export interface PgBouncerOptions {
  /** Any URL of the PostgreSQL server to pool (host and port are taken; every database on it is served). */
  serverUrl: string;
  /** `pool_mode`; transaction by default. */
  poolMode?: 'transaction' | 'session';
  /** `default_pool_size`: server connections per database and user. */
  poolSize?: number;
  /** `max_client_conn`. */
  maxClientConn?: number;
  /** statement_timeout set on every server connection (`connect_query`), ms; none by default. */
  statementTimeoutMs?: number;
  /** `query_wait_timeout`, s: how long a client waits for a server connection before PgBouncer disconnects it. */
  queryWaitTimeoutS?: number;
}

export interface PgBouncer {
  port: number;
  /** `url` with its host and port replaced by PgBouncer's: the same database and user, through the pooler. */
  through(url: string): string;
  /** The pooler's log so far (for a failing test's message). */
  log(): string;
  stop(): Promise<void>;
}

/** PgBouncer refuses to run as root: it then drops to this account (postgres where it exists). */
function unprivilegedUser(): string | null {
  if (process.getuid?.() !== 0) return null;
  const users = fs.readFileSync('/etc/passwd', 'utf8');
  return /^postgres:/m.test(users) ? 'postgres' : 'nobody';
}

export async function startPgbouncer(opts: PgBouncerOptions): Promise<PgBouncer> {
  const server = new URL(opts.serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-pgbouncer-'));
  const port = await freePort();
  const connectQuery = opts.statementTimeoutMs ? ` connect_query='SET statement_timeout = ${opts.statementTimeoutMs}'` : '';
  const ini = [
    '[databases]',
    // Every database on the server (each test file clones its own), with the statement timeout on each server connection.
    `* = host=${server.hostname} port=${server.port || 5432}${connectQuery}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${path.join(dir, 'users.txt')}`,
    `admin_users = ${user}`,
    `pool_mode = ${opts.poolMode ?? 'transaction'}`,
    `default_pool_size = ${opts.poolSize ?? 5}`,
    'reserve_pool_size = 0',
    `max_client_conn = ${opts.maxClientConn ?? 200}`,
    // pg sends the pool's statement_timeout as a startup parameter; PgBouncer 1.18 would refuse the client for it.
    'ignore_startup_parameters = statement_timeout',
    ...(opts.queryWaitTimeoutS ? [`query_wait_timeout = ${opts.queryWaitTimeoutS}`] : []),
    'logfile =',
    'pidfile =',
    '',
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'pgbouncer.ini'), ini);
  // Clients are trusted; the password (when the server wants one) is what PgBouncer logs in to the server with.
  const password = decodeURIComponent(server.password).replace(/"/g, '""');
  fs.writeFileSync(path.join(dir, 'users.txt'), `"${user}" "${password}"\n`);
  const runAs = unprivilegedUser();
  if (runAs) {
    fs.chmodSync(dir, 0o755);
    for (const f of ['pgbouncer.ini', 'users.txt']) fs.chmodSync(path.join(dir, f), 0o644);
  }
  const args = [...(runAs ? ['-u', runAs] : []), path.join(dir, 'pgbouncer.ini')];
  const child: ChildProcess = spawn(PGBOUNCER_PATH, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (output += b.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killLater = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killLater);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`pgbouncer exited at start:\n${output}`);
    }
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => (s.end(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`pgbouncer did not listen on ${port} within 10 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  return {
    port,
    through(url: string) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    log: () => output,
    stop,
  };
}
