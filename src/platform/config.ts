import path from 'node:path';
import { boolVar, ConfigError, DEFAULT_RETRY_SCHEDULE, intVar, isOneOf, postgresUrlVar, scheduleVar, urlVar, type Env } from './config-vars.js';
import { RATE_LIMIT_STORE_KINDS, type RateLimitStoreKind } from './http/rate-limit-store.js';
import { MIGRATE_MODES, type MigrateMode } from './migrate.js';
import { replicaConfig, type ReplicaConfig } from './replica-config.js';
import { storageConfig, type StorageConfig } from './storage-config.js';
import { DEFAULT_WORKER_POOL } from './worker-pool/shared-pool.js';
import type { WorkerPoolOptions } from './worker-pool/worker-pool.js';

export { ConfigError, DEFAULT_RETRY_SCHEDULE };

/** Where Debian's fonts-noto-core and fonts-noto-cjk install the report's fonts. */
export const DEFAULT_REPORT_FONT_DIRS = ['/usr/share/fonts/truetype/noto', '/usr/share/fonts/opentype/noto'];
export type { StorageConfig };

/**
 * Configuration, parsed once at boot into a frozen object and passed down.
 * Nothing else in the code base reads process.env. A bad value throws a
 * ConfigError naming the variable, and the process stops.
 */
export interface Config {
  /** Absent: the embedded PostgreSQL in `dataDir`. */
  databaseUrl: string | null;
  /**
   * ASSAY_DATABASE_SESSION_URL: where what needs a session of its own connects (LISTEN, migrations' lock, readiness,
   * the webhook dispatcher's connections) when DATABASE_URL goes through a transaction-mode pooler; null: DATABASE_URL.
   * Setting it also tells the pool that its connections keep no session (no named prepared statements).
   */
  databaseSessionUrl: string | null;
  dataDir: string;
  port: number;
  host: string;
  publicBaseUrl: string;
  /** Null only before local development defaults are filled in (see main.ts). */
  adminToken: string | null;
  /** Start-link and session signing secrets; the first signs, all verify (rotation). */
  secrets: string[] | null;
  /** ASSAY_PSEUDO_LOCALE: offer the pseudo-locale `en-XA` to a partner's `locale` (tests and translators' review; docs/languages.md). */
  pseudoLocale: boolean;
  /**
   * ASSAY_REPORT_FONT_DIRS: the folders (separated by `:`) holding the Noto fonts a report's PDF embeds for languages
   * and scripts the standard PDF fonts cannot write (results/report-fonts.ts; docs/results.md).
   */
  reportFontDirs: string[];
  allowInsecureUrls: boolean;
  rateLimit: { perSecond: number; burst: number };
  /** Limits for traffic no API key pays for: per client address, or per student session. */
  requestLimits: RequestLimits;
  logLevel: string;
  /** Whether this process also runs the background worker (npm start does). */
  runWorker: boolean;
  /** ASSAY_MIGRATE: `apply` pending migrations at boot (default), or only `check` (deployments that run `npm run migrate` first). */
  migrate: MigrateMode;
  /** Database pool size per process. */
  dbPoolSize: number;
  /** ASSAY_DB_CONNECT_WAIT_MS: how long a request waits for a pool connection before it answers 503 (0: for ever). */
  dbConnectWaitMs: number;
  /** ASSAY_DB_STATEMENT_TIMEOUT_MS: PostgreSQL's statement_timeout on the pool's connections (0: none). Migrations run without it. */
  dbStatementTimeoutMs: number;
  /** ASSAY_DATABASE_REPLICA_URL and its lag bound: where reads that may be a little behind go. */
  replica: ReplicaConfig;
  webhooks: WebhookTunables;
  /** Where proctoring recordings and snapshots go: local files under dataDir, or an S3-compatible bucket. */
  storage: StorageConfig;
  /** Recordings, snapshots and flags are purged this many days after the attempt was submitted. */
  proctoringRetentionDays: number;
  /** How long a presigned direct upload (S3 storage only) stays valid, in seconds. */
  directUploadSeconds: number;
  /** Null: AI marking is off (ASSAY_AI_BASE_URL unset) and AI-markable items go to reviewers. */
  ai: AiConfig | null;
  mail: MailConfig;
  /**
   * Which reverse proxies' X-Forwarded-For to believe for the client's address
   * (per-IP sign-in limits, audit entries): false (none), true (any: only when
   * the proxy is the sole way in), or a list of proxy addresses/CIDRs.
   */
  trustProxy: boolean | number | string[];
  operations: OperationsConfig;
  /** The threads that parse uploaded documents off the event loop (platform/worker-pool). */
  workerPool: WorkerPoolOptions;
  /**
   * ASSAY_HEARTBEAT_FLUSH_MS: how long an API process holds proctoring heartbeats in memory before writing them
   * in one statement (proctoring/heartbeat-coalescer.ts); what a crash can lose. The interruption sweep waits this
   * much longer before it calls a page silent.
   */
  heartbeatFlushMs: number;
  /** The student page's status streams (`GET /a/{id}/events`, student/status-streams.ts) this process holds open. */
  statusStreams: StatusStreamLimits;
  /** How long a request body may take to arrive (platform/http/request-time.ts); absent: 30 s, uploads + size at 50 KB/s. Tests scale it. */
  requestTime?: { baseMs: number; uploadFloorBytesPerSecond: number };
}

/** Metrics, tracing and the shared rate limit (docs/production.md). */
export interface OperationsConfig {
  /** ASSAY_METRICS_TOKEN: `GET /metrics` on the API port answers only with `Authorization: Bearer <token>`. */
  metricsToken: string | null;
  /** ASSAY_METRICS_PORT: `GET /metrics` served on this port of HOST too (the token is checked there as well when set). */
  metricsPort: number | null;
  /** Tracing with OpenTelemetry, switched on by the standard OTEL_* variables (telemetry/tracing.ts); service name from OTEL_SERVICE_NAME. */
  tracing: { enabled: boolean; serviceName: string };
  /** ASSAY_RATE_LIMIT_STORE: where the per-key buckets live; `batched` (the default with DATABASE_URL) and `postgres` keep one limit across API processes. */
  rateLimitStore: RateLimitStoreKind;
  /**
   * ASSAY_PORTAL: whether this API process serves the staff portal (`on`, the
   * default) or only the APIs and the student pages (`off`), for deployments
   * that keep partner traffic and staff traffic on separate processes.
   */
  portal: boolean;
}

/** Requests per minute. */
export interface RequestLimits {
  /** Per client address: partner and operator requests that do not authenticate (no key, a wrong or unknown one). */
  unauthenticatedPerMinute: number;
  /** Per client address: the ceiling on opening start and report links (`GET /s/…`, `/reports/…`), and LTI's login and launch. A classroom behind one NAT address shares it. */
  startLinksPerMinute: number;
  /** Per link: opening one start or report link. */
  startLinkOpensPerMinute: number;
  /** Per student session, twice over: the student's own POSTs (begin, autosave, submit), and apart the page's background POSTs (heartbeats, uploads). */
  studentPostsPerMinute: number;
}

/** Open status streams: past either cap a new one is refused with 503 and Retry-After, and the page polls instead. */
export interface StatusStreamLimits {
  /** In this process, all sessions together (each holds a socket and a few KB). */
  perProcess: number;
  /** Per student session (a student with the test open in several tabs). */
  perSession: number;
  /** How often a comment line goes to every stream (and their sessions are checked); absent: 25 s. Tests shorten it. */
  pingMs?: number;
}

/** Outgoing mail (portal sign-in links). */
export interface MailConfig {
  /** `smtp://user:pass@host:port` or `smtps://…`; null: messages are written to the log instead (development only). */
  smtpUrl: string | null;
  /** The From header, e.g. `Assay <no-reply@assay.example>`. */
  from: string;
}

/** AI marking over an OpenAI-compatible Chat Completions server (docs/ai-marking.md). */
export interface AiConfig {
  /** Without a trailing slash; requests go to `${baseUrl}/chat/completions`. */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer`; never logged. Null for local servers that need none. */
  apiKey: string | null;
  timeoutMs: number;
  /** Model calls in flight per worker process. */
  concurrency: number;
  /** Model calls per institution per UTC day; past it, items go to reviewers. */
  dailyBudget: number;
  /** Delay before call n+1 of one item (n = 0 is the first call); its length is the number of calls. */
  retryScheduleMs: number[];
}

/** Webhook delivery tunables. The defaults are the product's rules; tests compress them. */
export interface WebhookTunables {
  /** Delay before attempt n+1 (n = 0 is the first attempt); its length is the number of attempts. */
  retryScheduleMs: number[];
  /** A response (status and headers) must arrive within this; docs/api-rules.md says 15 s. */
  timeoutMs: number;
  /** How long a claimed delivery stays leased; longer than timeoutMs so no healthy attempt is retried twice. */
  leaseMs: number;
  /** Deliveries in flight per dispatcher process. */
  concurrency: number;
  /** Deliveries in flight per endpoint over every dispatcher process, so one slow partner cannot take every slot. */
  endpointConcurrency: number;
}

/** The one place the process environment is read; everything else receives the parsed Config. */
export function processEnvironment(): Env {
  return process.env;
}

function hostVar(env: Env): string {
  const raw = env.HOST || '127.0.0.1';
  // An IP literal or a host name: what the listener can bind to, nothing with a scheme, port or path.
  if (!/^[A-Za-z0-9.:-]{1,253}$/.test(raw) || raw.includes('::/')) {
    throw new ConfigError('HOST', `must be an address or host name to listen on (e.g. 127.0.0.1 or 0.0.0.0), got "${raw}"`);
  }
  return raw;
}

/**
 * What a pool process inherits of the environment: how to find things, the time zone and the locale, Node's
 * own options. Not the rest: the database's address, the secrets and the keys stay with the process that
 * needs them, out of reach of a task reading a hostile file.
 */
const POOL_PROCESS_ENV = ['PATH', 'HOME', 'TMPDIR', 'TZ', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'LC_MESSAGES', 'NODE_OPTIONS'];

function poolIsolation(env: Env): Pick<WorkerPoolOptions, 'isolation' | 'processEnv'> {
  const raw = env.ASSAY_WORKER_ISOLATION || DEFAULT_WORKER_POOL.isolation!;
  if (!isOneOf(['thread', 'process'] as const, raw)) throw new ConfigError('ASSAY_WORKER_ISOLATION', `must be thread or process, got "${raw}"`);
  if (raw === 'thread') return { isolation: raw };
  return { isolation: raw, processEnv: Object.fromEntries(POOL_PROCESS_ENV.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]]))) };
}

function migrateVar(env: Env): MigrateMode {
  const raw = env.ASSAY_MIGRATE || 'apply';
  if (!isOneOf(MIGRATE_MODES, raw)) throw new ConfigError('ASSAY_MIGRATE', `must be apply or check, got "${raw}"`);
  return raw;
}

export function parseConfig(env: Env, opts: { requireSecrets: boolean } = { requireSecrets: true }): Config {
  const databaseUrl = postgresUrlVar(env, 'DATABASE_URL', { hostList: true });
  const databaseSessionUrl = postgresUrlVar(env, 'ASSAY_DATABASE_SESSION_URL', { hostList: true });
  if (databaseSessionUrl && !databaseUrl) throw new ConfigError('ASSAY_DATABASE_SESSION_URL', 'needs DATABASE_URL (the embedded database has no pooler)');
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
  // Serving processes need both; the CLI only for the commands that use them (it checks there).
  if (databaseUrl && !adminToken && opts.requireSecrets) {
    throw new ConfigError('ASSAY_ADMIN_TOKEN', 'is required when DATABASE_URL is set (at least 24 characters)');
  }
  if (databaseUrl && !secrets && opts.requireSecrets) {
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
    databaseSessionUrl,
    dataDir: path.resolve(env.ASSAY_DATA_DIR || './data'),
    port,
    host: hostVar(env),
    publicBaseUrl: urlVar(env, 'PUBLIC_BASE_URL', `http://localhost:${port}`),
    adminToken,
    secrets,
    allowInsecureUrls: boolVar(env, 'ASSAY_ALLOW_INSECURE_URLS', false),
    pseudoLocale: boolVar(env, 'ASSAY_PSEUDO_LOCALE', false),
    reportFontDirs: env.ASSAY_REPORT_FONT_DIRS ? env.ASSAY_REPORT_FONT_DIRS.split(':').filter((d) => d !== '').map((d) => path.resolve(d)) : [...DEFAULT_REPORT_FONT_DIRS],
    rateLimit: { perSecond, burst },
    requestLimits: {
      unauthenticatedPerMinute: intVar(env, 'ASSAY_UNAUTHENTICATED_RATE_LIMIT', 60, 1, 1_000_000),
      startLinksPerMinute: intVar(env, 'ASSAY_START_LINK_RATE_LIMIT', 3_000, 1, 1_000_000),
      startLinkOpensPerMinute: intVar(env, 'ASSAY_START_LINK_OPENS_PER_LINK', 20, 1, 1_000_000),
      studentPostsPerMinute: intVar(env, 'ASSAY_STUDENT_RATE_LIMIT', 300, 1, 1_000_000),
    },
    logLevel,
    runWorker: boolVar(env, 'ASSAY_RUN_WORKER', true),
    migrate: migrateVar(env),
    dbPoolSize: intVar(env, 'ASSAY_DB_POOL_SIZE', 10, 1, 500),
    dbConnectWaitMs: intVar(env, 'ASSAY_DB_CONNECT_WAIT_MS', 5_000, 0, 600_000),
    dbStatementTimeoutMs: intVar(env, 'ASSAY_DB_STATEMENT_TIMEOUT_MS', 60_000, 0, 86_400_000),
    replica: replicaConfig(env, databaseUrl),
    webhooks: webhookTunables(env),
    storage: storageConfig(env),
    proctoringRetentionDays: intVar(env, 'ASSAY_PROCTORING_RETENTION_DAYS', 30, 1, 3650),
    directUploadSeconds: intVar(env, 'ASSAY_DIRECT_UPLOAD_SECONDS', 300, 30, 3600),
    ai: aiConfig(env),
    mail: mailConfig(env, publicBaseUrlHost(env, port)),
    trustProxy: trustProxyVar(env),
    operations: operationsConfig(env, port, databaseUrl !== null),
    heartbeatFlushMs: intVar(env, 'ASSAY_HEARTBEAT_FLUSH_MS', 2_000, 100, 4_000),
    statusStreams: {
      perProcess: intVar(env, 'ASSAY_STATUS_STREAMS_MAX', 20_000, 0, 1_000_000),
      perSession: intVar(env, 'ASSAY_STATUS_STREAMS_PER_SESSION', 4, 1, 100),
    },
    workerPool: {
      threads: intVar(env, 'ASSAY_WORKER_THREADS', DEFAULT_WORKER_POOL.threads, 1, 64),
      queueLimit: intVar(env, 'ASSAY_WORKER_QUEUE', DEFAULT_WORKER_POOL.queueLimit, 0, 10_000),
      taskTimeoutMs: intVar(env, 'ASSAY_WORKER_TASK_TIMEOUT_MS', DEFAULT_WORKER_POOL.taskTimeoutMs, 1_000, 600_000),
      memoryMb: intVar(env, 'ASSAY_WORKER_MEMORY_MB', DEFAULT_WORKER_POOL.memoryMb, 64, 16_384),
      ...poolIsolation(env),
    },
  };
}

/** A model call, then retries 30 s, 2 min and 10 min later: a short outage costs minutes, a long one a reviewer. */
export const DEFAULT_AI_RETRY_SCHEDULE = '0,30s,2m,10m';

function aiConfig(env: Env): AiConfig | null {
  // Every AI variable is checked even when AI marking is off, so a typo is caught before it is switched on.
  const timeoutMs = intVar(env, 'ASSAY_AI_TIMEOUT_MS', 60_000, 100, 600_000);
  const concurrency = intVar(env, 'ASSAY_AI_CONCURRENCY', 4, 1, 256);
  const dailyBudget = intVar(env, 'ASSAY_AI_DAILY_BUDGET', 5000, 0, 100_000_000);
  const retryScheduleMs = scheduleVar(env, 'ASSAY_AI_RETRY_SCHEDULE', DEFAULT_AI_RETRY_SCHEDULE);
  if (!env.ASSAY_AI_BASE_URL) return null;
  const baseUrl = urlVar(env, 'ASSAY_AI_BASE_URL', '');
  const model = env.ASSAY_AI_MODEL?.trim() ?? '';
  if (!model) throw new ConfigError('ASSAY_AI_MODEL', 'is required when ASSAY_AI_BASE_URL is set (e.g. llama3.1)');
  if (model.length > 200 || /[\s\u0000-\u001f]/.test(model)) throw new ConfigError('ASSAY_AI_MODEL', 'must be a model name without spaces, at most 200 characters');
  return { baseUrl, model, apiKey: env.ASSAY_AI_API_KEY || null, timeoutMs, concurrency, dailyBudget, retryScheduleMs };
}

function trustProxyVar(env: Env): boolean | number | string[] {
  const raw = env.ASSAY_TRUST_PROXY;
  if (raw === undefined || raw === '') return false;
  // A number: how many proxy hops of X-Forwarded-For to believe.
  if (/^\d+$/.test(raw) && !['0', '1'].includes(raw)) return intVar(env, 'ASSAY_TRUST_PROXY', 0, 0, 10);
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  const list = raw.split(',').map((s) => s.trim());
  if (list.some((a) => !/^[0-9A-Fa-f:.]+(\/\d{1,3})?$/.test(a))) {
    throw new ConfigError('ASSAY_TRUST_PROXY', `must be true/false or comma-separated proxy addresses or CIDRs (10.0.0.0/8), got "${raw}"`);
  }
  return list;
}

function publicBaseUrlHost(env: Env, port: number): string {
  return new URL(urlVar(env, 'PUBLIC_BASE_URL', `http://localhost:${port}`)).hostname;
}

function mailConfig(env: Env, host: string): MailConfig {
  const smtpUrl = env.ASSAY_SMTP_URL || null;
  if (smtpUrl) {
    let ok = false;
    try {
      const u = new URL(smtpUrl);
      ok = (u.protocol === 'smtp:' || u.protocol === 'smtps:') && u.hostname !== '';
    } catch {
      ok = false;
    }
    // Never echo the value: it may hold a password.
    if (!ok) throw new ConfigError('ASSAY_SMTP_URL', 'must be an smtp:// or smtps:// URL (smtp://user:pass@host:port)');
  }
  const from = env.ASSAY_MAIL_FROM || `Assay <no-reply@${host.includes('.') ? host : `${host}.invalid`}>`;
  if (!/^[^\r\n<>@]*<?[^\s<>@]+@[^\s<>@]+>?$/.test(from) || from.length > 320) {
    throw new ConfigError('ASSAY_MAIL_FROM', `must be an address, optionally with a name ("Assay <no-reply@example.org>"), got "${from}"`);
  }
  return { smtpUrl, from };
}

function operationsConfig(env: Env, port: number, sharedDatabase: boolean): OperationsConfig {
  const metricsToken = env.ASSAY_METRICS_TOKEN || null;
  if (metricsToken !== null && metricsToken.length < 24) throw new ConfigError('ASSAY_METRICS_TOKEN', 'must be at least 24 characters');
  const metricsPort = env.ASSAY_METRICS_PORT ? intVar(env, 'ASSAY_METRICS_PORT', 0, 1, 65535) : null;
  if (metricsPort !== null && metricsPort === port) throw new ConfigError('ASSAY_METRICS_PORT', `must differ from PORT (${port})`);
  // With DATABASE_URL several API processes may share the database; the embedded one belongs to this process alone.
  const store = env.ASSAY_RATE_LIMIT_STORE || (sharedDatabase ? 'batched' : 'memory');
  if (!isOneOf(RATE_LIMIT_STORE_KINDS, store)) throw new ConfigError('ASSAY_RATE_LIMIT_STORE', `must be memory, batched or postgres, got "${store}"`);
  const tracing = { enabled: tracingEnabled(env), serviceName: env.OTEL_SERVICE_NAME || 'assay' };
  const portal = env.ASSAY_PORTAL || 'on';
  if (portal !== 'on' && portal !== 'off') throw new ConfigError('ASSAY_PORTAL', `must be on or off, got "${portal}"`);
  return { metricsToken, metricsPort, tracing, rateLimitStore: store, portal: portal === 'on' };
}

/**
 * Tracing is off unless the standard OpenTelemetry variables ask for it: an
 * exporter other than `none` (OTEL_TRACES_EXPORTER) or an OTLP endpoint
 * (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), and
 * OTEL_SDK_DISABLED not true. The SDK reads the rest of OTEL_* itself
 * (service name, sampler, headers).
 */
export function tracingEnabled(env: Env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((e) => e.trim().toLowerCase()).filter(Boolean);
  if (exporters.length > 0) return exporters.some((e) => e !== 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

function webhookTunables(env: Env): WebhookTunables {
  const timeoutMs = intVar(env, 'ASSAY_WEBHOOK_TIMEOUT_MS', 15_000, 100, 60_000);
  const leaseMs = intVar(env, 'ASSAY_WEBHOOK_LEASE_MS', timeoutMs * 2, 200, 600_000);
  if (leaseMs <= timeoutMs) throw new ConfigError('ASSAY_WEBHOOK_LEASE_MS', `must be longer than ASSAY_WEBHOOK_TIMEOUT_MS (${timeoutMs})`);
  return {
    retryScheduleMs: scheduleVar(env, 'ASSAY_WEBHOOK_RETRY_SCHEDULE'),
    timeoutMs,
    leaseMs,
    concurrency: intVar(env, 'ASSAY_WEBHOOK_CONCURRENCY', 64, 1, 1000),
    endpointConcurrency: intVar(env, 'ASSAY_WEBHOOK_ENDPOINT_CONCURRENCY', 8, 1, 100),
  };
}

export function freezeConfig(config: Config): Readonly<Config> {
  Object.freeze(config.rateLimit);
  Object.freeze(config.replica);
  Object.freeze(config.requestLimits);
  Object.freeze(config.statusStreams);
  Object.freeze(config.webhooks.retryScheduleMs);
  Object.freeze(config.webhooks);
  Object.freeze(config.storage);
  if (config.ai) {
    Object.freeze(config.ai.retryScheduleMs);
    Object.freeze(config.ai);
  }
  Object.freeze(config.mail);
  if (Array.isArray(config.trustProxy)) Object.freeze(config.trustProxy);
  Object.freeze(config.operations);
  Object.freeze(config.workerPool);
  if (config.secrets) Object.freeze(config.secrets);
  return Object.freeze(config);
}
