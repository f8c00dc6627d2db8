import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, freezeConfig, parseConfig } from './config.js';

const VALID = {
  DATABASE_URL: 'postgres://assay:s3cret-pw@db.internal:5432/assay',
  ASSAY_ADMIN_TOKEN: 'admin-token-0123456789abcdef',
  ASSAY_SECRET: 'signing-secret-0123456789abcdef0123456789',
};

function configError(env: Record<string, string>): ConfigError {
  try {
    parseConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`parseConfig accepted ${JSON.stringify(env)}`);
}

describe('configuration', () => {
  it('with no variables at all, starts on local defaults (embedded database, port 3000, 127.0.0.1)', () => {
    const c = parseConfig({});
    expect(c).toMatchObject({
      databaseUrl: null,
      port: 3000,
      host: '127.0.0.1',
      publicBaseUrl: 'http://localhost:3000',
      adminToken: null,
      secrets: null,
      allowInsecureUrls: false,
      rateLimit: { perSecond: 100, burst: 200 },
      logLevel: 'info',
    });
    expect(c.dataDir).toBe(path.resolve('./data'));
  });

  it('reads every documented variable', () => {
    const c = parseConfig({
      ...VALID,
      PORT: '8080',
      HOST: '0.0.0.0',
      PUBLIC_BASE_URL: 'https://assay.example.com/',
      ASSAY_DATA_DIR: '/tmp/assay-data',
      ASSAY_ALLOW_INSECURE_URLS: 'true',
      ASSAY_RATE_LIMIT_PER_SECOND: '5',
      ASSAY_RATE_LIMIT_BURST: '10',
      ASSAY_UNAUTHENTICATED_RATE_LIMIT: '30',
      ASSAY_START_LINK_RATE_LIMIT: '600',
      ASSAY_STUDENT_RATE_LIMIT: '120',
      ASSAY_TRUST_PROXY: 'true',
      ASSAY_MIGRATE: 'check',
      LOG_LEVEL: 'warn',
      ASSAY_SECRET: `${VALID.ASSAY_SECRET}, older-secret-0123456789abcdef0123456789`,
    });
    expect(c).toMatchObject({
      databaseUrl: VALID.DATABASE_URL,
      port: 8080,
      host: '0.0.0.0',
      publicBaseUrl: 'https://assay.example.com',
      dataDir: '/tmp/assay-data',
      adminToken: VALID.ASSAY_ADMIN_TOKEN,
      secrets: [VALID.ASSAY_SECRET, 'older-secret-0123456789abcdef0123456789'],
      allowInsecureUrls: true,
      rateLimit: { perSecond: 5, burst: 10 },
      requestLimits: { unauthenticatedPerMinute: 30, startLinksPerMinute: 600, startLinkOpensPerMinute: 20, studentPostsPerMinute: 120 },
      trustProxy: true,
      migrate: 'check',
      logLevel: 'warn',
    });
    expect(parseConfig({ ASSAY_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(parseConfig({}).requestLimits).toEqual({ unauthenticatedPerMinute: 60, startLinksPerMinute: 3_000, startLinkOpensPerMinute: 20, studentPostsPerMinute: 300 });
    expect(parseConfig({}).trustProxy).toBe(false);
  });

  it('accepts a DATABASE_URL naming several hosts (a primary and its standbys), libpq-style', () => {
    const url = 'postgres://assay:pw@db1:5432,db2:5433,[::1]/assay?sslmode=require';
    expect(parseConfig({ ...VALID, DATABASE_URL: url }).databaseUrl).toBe(url);
  });

  it('PUBLIC_BASE_URL defaults to the chosen port', () => {
    expect(parseConfig({ PORT: '4010' }).publicBaseUrl).toBe('http://localhost:4010');
  });

  it.each([
    ['HOST', 'http://0.0.0.0'],
    ['HOST', 'local host'],
    ['PORT', 'abc'],
    ['PORT', '-1'],
    ['PORT', '65536'],
    ['PORT', '80.5'],
    ['PORT', ' 80'],
    ['DATABASE_URL', 'mysql://user@host/db'],
    ['DATABASE_URL', 'not a url'],
    ['DATABASE_URL', 'postgres://u@db1:5432,db2:port/assay'],
    ['ASSAY_ADMIN_TOKEN', 'short'],
    ['ASSAY_SECRET', 'too-short'],
    ['ASSAY_SECRET', `${VALID.ASSAY_SECRET},`],
    ['PUBLIC_BASE_URL', 'assay.example.com'],
    ['PUBLIC_BASE_URL', 'ftp://assay.example.com'],
    ['PUBLIC_BASE_URL', 'https://assay.example.com/?x=1'],
    ['PUBLIC_BASE_URL', 'https://user:pw@assay.example.com'],
    ['ASSAY_ALLOW_INSECURE_URLS', 'maybe'],
    ['ASSAY_RATE_LIMIT_PER_SECOND', '0'],
    ['ASSAY_RATE_LIMIT_PER_SECOND', 'fast'],
    ['ASSAY_RATE_LIMIT_BURST', '0'],
    ['ASSAY_RATE_LIMIT_BURST', '1e3'],
    ['LOG_LEVEL', 'loud'],
    ['ASSAY_RUN_WORKER', 'sometimes'],
    ['ASSAY_DB_POOL_SIZE', '0'],
    ['ASSAY_DB_POOL_SIZE', '501'],
    ['ASSAY_WEBHOOK_TIMEOUT_MS', '99'],
    ['ASSAY_WEBHOOK_LEASE_MS', '15000'],
    ['ASSAY_WEBHOOK_RETRY_SCHEDULE', '5s,5m'],
    ['ASSAY_WEBHOOK_RETRY_SCHEDULE', '0,soon'],
    ['ASSAY_WEBHOOK_CONCURRENCY', '0'],
    ['ASSAY_WEBHOOK_ENDPOINT_CONCURRENCY', 'many'],
    ['ASSAY_UNAUTHENTICATED_RATE_LIMIT', '0'],
    ['ASSAY_START_LINK_RATE_LIMIT', 'lots'],
    ['ASSAY_STUDENT_RATE_LIMIT', '-5'],
    ['ASSAY_TRUST_PROXY', 'maybe'],
    ['ASSAY_TRUST_PROXY', '11'],
    ['ASSAY_MIGRATE', 'yes'],
  ])('%s=%j stops with a ConfigError naming the variable', (name, value) => {
    const err = configError({ ...VALID, [name]: value });
    expect(err.variable).toBe(name);
    expect(err.message).toContain(name);
  });

  it('with DATABASE_URL, ASSAY_ADMIN_TOKEN and ASSAY_SECRET are required (no local defaults in production)', () => {
    expect(configError({ DATABASE_URL: VALID.DATABASE_URL, ASSAY_SECRET: VALID.ASSAY_SECRET }).variable).toBe('ASSAY_ADMIN_TOKEN');
    expect(configError({ DATABASE_URL: VALID.DATABASE_URL, ASSAY_ADMIN_TOKEN: VALID.ASSAY_ADMIN_TOKEN }).variable).toBe('ASSAY_SECRET');
  });

  it('never echoes a secret or a database password in the error', () => {
    expect(configError({ ...VALID, DATABASE_URL: 'mysql://assay:hunter2-pw@db/x' }).message).not.toContain('hunter2');
    expect(configError({ ...VALID, ASSAY_ADMIN_TOKEN: 'tiny-admin-tok' }).message).not.toContain('tiny-admin-tok');
    expect(configError({ ...VALID, ASSAY_SECRET: 'tiny-signing-secret' }).message).not.toContain('tiny-signing-secret');
  });

  it("the worker pool's variables: defaults (at most two threads, one core left to the event loop), values, a bad one named", () => {
    const d = parseConfig({}).workerPool;
    expect(d).toMatchObject({ queueLimit: 16, taskTimeoutMs: 30_000, memoryMb: 512 });
    expect(d.threads).toBeGreaterThanOrEqual(1);
    expect(d.threads).toBeLessThanOrEqual(2);
    const env = { ASSAY_WORKER_THREADS: '4', ASSAY_WORKER_QUEUE: '0', ASSAY_WORKER_TASK_TIMEOUT_MS: '5000', ASSAY_WORKER_MEMORY_MB: '256' };
    expect(parseConfig(env).workerPool).toEqual({ threads: 4, queueLimit: 0, taskTimeoutMs: 5000, memoryMb: 256, isolation: 'process', processEnv: {} });
    expect(parseConfig({ ...env, ASSAY_WORKER_ISOLATION: 'thread' }).workerPool).toEqual({ threads: 4, queueLimit: 0, taskTimeoutMs: 5000, memoryMb: 256, isolation: 'thread' });
    // A pool process gets how to find things, the time zone and the locale; never the database's address nor a secret.
    const processes = parseConfig({ ...VALID, ASSAY_WORKER_ISOLATION: 'process', PATH: '/usr/bin', TZ: 'Europe/Paris' }).workerPool;
    expect(processes).toMatchObject({ isolation: 'process', processEnv: { PATH: '/usr/bin', TZ: 'Europe/Paris' } });
    expect(Object.keys(processes.processEnv!).sort()).toEqual(['PATH', 'TZ']);
    expect(configError({ ASSAY_WORKER_ISOLATION: 'fork' }).variable).toBe('ASSAY_WORKER_ISOLATION');
    expect(configError({ ASSAY_WORKER_THREADS: '0' }).variable).toBe('ASSAY_WORKER_THREADS');
    expect(configError({ ASSAY_WORKER_TASK_TIMEOUT_MS: '10' }).variable).toBe('ASSAY_WORKER_TASK_TIMEOUT_MS');
  });

  it('ASSAY_DATABASE_SESSION_URL: a second postgres URL for what needs a session, only beside DATABASE_URL, never echoed', () => {
    expect(parseConfig(VALID).databaseSessionUrl).toBeNull();
    const direct = 'postgres://assay:s3cret-pw@db.internal:5432/assay';
    const pooled = { ...VALID, DATABASE_URL: 'postgres://assay:s3cret-pw@pgbouncer.internal:6432/assay' };
    expect(parseConfig({ ...pooled, ASSAY_DATABASE_SESSION_URL: direct })).toMatchObject({ databaseUrl: pooled.DATABASE_URL, databaseSessionUrl: direct });
    const bad = configError({ ...VALID, ASSAY_DATABASE_SESSION_URL: 'mysql://assay:s3cret-pw@db/assay' });
    expect(bad.variable).toBe('ASSAY_DATABASE_SESSION_URL');
    expect(bad.message).not.toContain('s3cret');
    expect(configError({ ASSAY_DATABASE_SESSION_URL: direct }).message).toMatch(/needs DATABASE_URL/);
  });

  it('the parsed configuration is frozen', () => {
    const c = freezeConfig(parseConfig(VALID));
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.rateLimit)).toBe(true);
    expect(Object.isFrozen(c.secrets)).toBe(true);
  });

  it('only the config module reads process.env; every other module gets the parsed config', () => {
    const src = path.resolve(__dirname, '..');
    const readers = fs
      .readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .filter((f) => /process\.env\b/.test(fs.readFileSync(path.join(src, f), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')));
    expect(readers).toEqual(['platform/config.ts']);
  });
});
