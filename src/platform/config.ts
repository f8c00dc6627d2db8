import path from 'node:path';

/**
 * Configuration, parsed once at boot into a frozen object and passed down.
 * Nothing else in the code base reads process.env. A bad value throws a
 * ConfigError naming the variable, and the process stops.
 */
export interface Config {
  /** Absent: the embedded PostgreSQL in `dataDir`. */
  databaseUrl: string | null;
  dataDir: string;
  port: number;
  host: string;
  publicBaseUrl: string;
  /** Null only before local development defaults are filled in (see main.ts). */
  adminToken: string | null;
  /** Start-link and session signing secrets; the first signs, all verify (rotation). */
  secrets: string[] | null;
  allowInsecureUrls: boolean;
  rateLimit: { perSecond: number; burst: number };
  logLevel: string;
  /** Whether this process also runs the background worker (npm start does). */
  runWorker: boolean;
  /** Database pool size per process. */
  dbPoolSize: number;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid configuration: ${variable} ${message}`);
  }
}

type Env = Record<string, string | undefined>;

function intVar(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolVar(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, `must be 1/0 or true/false, got "${raw}"`);
}

function urlVar(env: Env, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an absolute URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(name, 'must be an http: or https: URL');
  if (url.search || url.hash || url.username || url.password) {
    throw new ConfigError(name, 'must not carry a query, fragment or credentials');
  }
  return url.toString().replace(/\/+$/, '');
}

export function parseConfig(env: Env): Config {
  const databaseUrl = env.DATABASE_URL || null;
  if (databaseUrl) {
    try {
      const u = new URL(databaseUrl);
      if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') throw new Error();
    } catch {
      // Never echo the value: it may hold a password.
      throw new ConfigError('DATABASE_URL', 'must be a postgres:// or postgresql:// URL');
    }
  }
  const port = intVar(env, 'PORT', 3000, 0, 65535);
  const adminToken = env.ASSAY_ADMIN_TOKEN || null;
  if (adminToken !== null && adminToken.length < 24) {
    throw new ConfigError('ASSAY_ADMIN_TOKEN', 'must be at least 24 characters');
  }
  let secrets: string[] | null = null;
  if (env.ASSAY_SECRET) {
    secrets = env.ASSAY_SECRET.split(',').map((s) => s.trim());
    if (secrets.some((s) => s.length < 32)) {
      throw new ConfigError('ASSAY_SECRET', 'must be one or more comma-separated secrets of at least 32 characters');
    }
  }
  if (databaseUrl && !adminToken) {
    throw new ConfigError('ASSAY_ADMIN_TOKEN', 'is required when DATABASE_URL is set (at least 24 characters)');
  }
  if (databaseUrl && !secrets) {
    throw new ConfigError('ASSAY_SECRET', 'is required when DATABASE_URL is set (at least 32 characters)');
  }
  const perSecond = intVar(env, 'ASSAY_RATE_LIMIT_PER_SECOND', 100, 1, 1_000_000);
  const burst = intVar(env, 'ASSAY_RATE_LIMIT_BURST', 200, 1, 1_000_000);
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of fatal, error, warn, info, debug, trace, silent`);
  }
  return {
    databaseUrl,
    dataDir: path.resolve(env.ASSAY_DATA_DIR || './data'),
    port,
    host: env.HOST || '127.0.0.1',
    publicBaseUrl: urlVar(env, 'PUBLIC_BASE_URL', `http://localhost:${port}`),
    adminToken,
    secrets,
    allowInsecureUrls: boolVar(env, 'ASSAY_ALLOW_INSECURE_URLS', false),
    rateLimit: { perSecond, burst },
    logLevel,
    runWorker: boolVar(env, 'ASSAY_RUN_WORKER', true),
    dbPoolSize: intVar(env, 'ASSAY_DB_POOL_SIZE', 10, 1, 500),
  };
}

export function freezeConfig(config: Config): Readonly<Config> {
  Object.freeze(config.rateLimit);
  if (config.secrets) Object.freeze(config.secrets);
  return Object.freeze(config);
}
