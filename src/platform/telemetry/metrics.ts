import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import client from 'prom-client';
import type { Config } from '../config.js';
import { safeEqual } from '../crypto.js';
import type { Pool } from '../db.js';
import type { ReadPools } from '../read-replica.js';

/**
 * Prometheus metrics (prom-client), one registry per process.
 *
 * Counted as things happen (cheap, no I/O): HTTP requests by route pattern
 * and status with their latency, webhook attempts by outcome with their HTTP
 * time and the lag from event to delivery, student saves by result.
 * Read when scraped, never per request: the database pool's connections,
 * and from ONE query (shared by the gauges of a scrape, which collect together)
 * the job queue's due work and its age by kind, the pending webhook
 * deliveries and the oldest one's age, and the attempts under way. That
 * query reads only partial indexes' worth of rows: due jobs, pending
 * deliveries, unsubmitted attempts.
 *
 * Served at `GET /metrics` on the API port when ASSAY_METRICS_TOKEN is set
 * (Bearer token, compared in constant time), and/or on its own port
 * (ASSAY_METRICS_PORT), which the worker process serves too. With neither,
 * nothing is served and the HTTP request histogram is not even kept.
 */
export const registry = new client.Registry();

const httpDuration = new client.Histogram({
  name: 'assay_http_request_duration_seconds',
  help: 'HTTP requests by method, route pattern and status: _count is the request count, the buckets the latency',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

const webhookAttempts = new client.Counter({
  name: 'assay_webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome: succeeded, retry (failed, will be retried), failed (retries exhausted), gone (410: endpoint disabled)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const webhookAttemptSeconds = new client.Histogram({
  name: 'assay_webhook_attempt_duration_seconds',
  help: 'Time of one webhook HTTP attempt, connection to response body',
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
  registers: [registry],
});

const webhookLagSeconds = new client.Histogram({
  name: 'assay_webhook_delivery_lag_seconds',
  help: 'From the event to its successful delivery (includes retries)',
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 30, 300, 1800, 7200, 36000, 108000],
  registers: [registry],
});

const studentSaves = new client.Counter({
  name: 'assay_student_saves_total',
  help: 'Student autosave answers by result: saved, stale (a newer version was already stored), refused (the request was refused)',
  labelNames: ['result'] as const,
  registers: [registry],
});

const saveBatchRequests = new client.Histogram({
  name: 'assay_student_save_batch_requests',
  help: 'Autosave requests stored by one database statement (save-batcher.ts): _sum / _count is the mean batch',
  buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
  registers: [registry],
});

export type WebhookOutcome = 'succeeded' | 'retry' | 'failed' | 'gone';

const attemptsBy = {
  succeeded: webhookAttempts.labels('succeeded'),
  retry: webhookAttempts.labels('retry'),
  failed: webhookAttempts.labels('failed'),
  gone: webhookAttempts.labels('gone'),
};

/** Called by the dispatcher for every attempt. */
export function recordWebhookAttempt(outcome: WebhookOutcome, durationMs: number, eventCreatedAt: Date, now: Date): void {
  attemptsBy[outcome].inc();
  webhookAttemptSeconds.observe(durationMs / 1000);
  if (outcome === 'succeeded') webhookLagSeconds.observe(Math.max(0, now.getTime() - eventCreatedAt.getTime()) / 1000);
}

// Bound once: looking a label up costs a hash of the labels on every save.
const studentSavesBy = { saved: studentSaves.labels('saved'), stale: studentSaves.labels('stale'), refused: studentSaves.labels('refused') };
/** Called by the autosave for every answer of a request (or once, `refused`, for a refused request). */
export function recordStudentSaves(result: 'saved' | 'stale' | 'refused', n = 1): void {
  if (n > 0) studentSavesBy[result].inc(n);
}

const statusStreams = new client.Gauge({
  name: 'assay_status_streams_open',
  help: 'Student status streams (GET /a/{id}/events) open in this process; compare with ASSAY_STATUS_STREAMS_MAX',
  registers: [registry],
});
/** Called by the status streams when one opens (+1) or ends (-1). */
export function recordStatusStreams(delta: 1 | -1): void {
  statusStreams.inc(delta);
}

const heartbeatFlushes = new client.Histogram({
  name: 'assay_heartbeat_flush_attempts',
  help: 'Attempts whose idle proctoring heartbeats one flush statement wrote (heartbeat-coalescer.ts)',
  buckets: [1, 10, 100, 1_000, 10_000],
  registers: [registry],
});
/** Called by the heartbeat coalescer for every flush it writes. */
export function recordHeartbeatFlush(attempts: number): void {
  heartbeatFlushes.observe(attempts);
}

/** Called by the autosave batcher for every statement it sends. */
export function recordSaveBatch(requests: number): void {
  saveBatchRequests.observe(requests);
}

/** Autosave statements sent and the requests they carried, since the process started (for benchmarks). */
export async function saveBatchTotals(): Promise<{ statements: number; requests: number }> {
  const { values } = await saveBatchRequests.get();
  const of = (name: string) => values.find((v) => v.metricName === name)?.value ?? 0;
  return { statements: of('assay_student_save_batch_requests_count'), requests: of('assay_student_save_batch_requests_sum') };
}

// ---- read when scraped ------------------------------------------------------------------------

/** The pool the gauges read: the process's own (the last one installed, in tests that build several apps). */
let source: Pool | null = null;

new client.Gauge({
  name: 'assay_db_pool_connections',
  help: 'PostgreSQL connections of this process by state: total, idle, waiting (requests queued for a connection)',
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    if (!source) return;
    this.set({ state: 'total' }, source.totalCount);
    this.set({ state: 'idle' }, source.idleCount);
    this.set({ state: 'waiting' }, source.waitingCount);
  },
});

/** The read replica's state (platform/read-replica.ts); null when none is configured. */
let replicaSource: ReadPools | null = null;

new client.Gauge({
  name: 'assay_replica_lag_seconds',
  help: "The read replica's lag at its last check, from WAL positions (absent while unknown: no check has succeeded, or the replica is down)",
  registers: [registry],
  collect() {
    this.reset();
    const lagMs = replicaSource?.status().lagMs;
    if (replicaSource?.status().up && lagMs !== null && lagMs !== undefined) this.set(lagMs / 1000);
  },
});

new client.Gauge({
  name: 'assay_replica_serving',
  help: 'Whether reads that may be a little behind go to the read replica now (1) or to the primary (0: past the lag bound, or the replica is down)',
  registers: [registry],
  collect() {
    this.reset();
    if (replicaSource) this.set(replicaSource.status().serving ? 1 : 0);
  },
});

new client.Gauge({
  name: 'assay_replica_reads',
  help: 'Reads that could go to the read replica since the process started, by the server they went to; fallback: failed on the replica and ran on the primary',
  labelNames: ['server'] as const,
  registers: [registry],
  collect() {
    this.reset();
    if (!replicaSource) return;
    const { replica, primary, fallbacks } = replicaSource.status().reads;
    this.set({ server: 'replica' }, replica);
    this.set({ server: 'primary' }, primary);
    this.set({ server: 'fallback' }, fallbacks);
  },
});

/** Makes this process's read replica the replica gauges' source. */
export function watchReadReplica(reads: ReadPools | null | undefined): void {
  replicaSource = reads ?? null;
}

interface Snapshot {
  jobs: Array<{ kind: string; due: number; oldestSeconds: number }>;
  pendingDeliveries: number;
  oldestPendingSeconds: number;
  activeAttempts: number;
}

const SNAPSHOT_SQL = `
  SELECT 'job' AS what, kind, count(*)::float8 AS n, extract(epoch FROM now() - min(run_at))::float8 AS age
    FROM jobs WHERE failed_at IS NULL AND run_at <= now() GROUP BY kind
  UNION ALL
  SELECT 'deliveries', NULL, count(*)::float8, COALESCE(extract(epoch FROM now() - min(created_at)), 0)::float8
    FROM webhook_deliveries WHERE status = 'pending'
  UNION ALL
  SELECT 'attempts', NULL, count(*)::float8, NULL FROM attempts WHERE submitted_at IS NULL`;

/** The query in flight: prom-client starts every gauge's collect() in the same turn, so they all share it. */
let pending: Promise<Snapshot | null> | null = null;

/** One query for every queue gauge of a scrape. */
function snapshot(): Promise<Snapshot | null> {
  if (pending) return pending;
  const pool = source;
  const value = !pool
    ? Promise.resolve(null)
    : pool.query<{ what: string; kind: string | null; n: number; age: number | null }>(SNAPSHOT_SQL).then(
        ({ rows }) => ({
          jobs: rows.filter((r) => r.what === 'job').map((r) => ({ kind: r.kind!, due: r.n, oldestSeconds: Math.max(0, r.age ?? 0) })),
          pendingDeliveries: rows.find((r) => r.what === 'deliveries')?.n ?? 0,
          oldestPendingSeconds: Math.max(0, rows.find((r) => r.what === 'deliveries')?.age ?? 0),
          activeAttempts: rows.find((r) => r.what === 'attempts')?.n ?? 0,
        }),
        // The database away: the scrape still answers (process and HTTP figures), without these gauges.
        () => null,
      );
  pending = value;
  void value.finally(() => {
    pending = null;
  });
  return value;
}

function queueGauge(name: string, help: string, labelNames: readonly string[], fill: (g: client.Gauge, s: Snapshot) => void) {
  return new client.Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      this.reset();
      const s = await snapshot();
      if (s) fill(this, s);
    },
  });
}

queueGauge('assay_jobs_due', 'Background jobs due now and not yet finished (running or waiting), by kind', ['kind'], (g, s) => {
  for (const j of s.jobs) g.set({ kind: j.kind }, j.due);
});
queueGauge('assay_jobs_oldest_due_seconds', 'How long the oldest due job of each kind has been due', ['kind'], (g, s) => {
  for (const j of s.jobs) g.set({ kind: j.kind }, j.oldestSeconds);
});
queueGauge('assay_webhook_deliveries_pending', 'Webhook deliveries not yet succeeded or failed (due, leased or waiting for a retry)', [], (g, s) =>
  g.set(s.pendingDeliveries),
);
queueGauge('assay_webhook_oldest_pending_seconds', 'Age of the oldest pending webhook delivery', [], (g, s) => g.set(s.oldestPendingSeconds));
queueGauge('assay_active_attempts', 'Attempts begun and not yet submitted', [], (g, s) => g.set(s.activeAttempts));

let processMetrics = false;

/** Makes this process's pool the gauges' source, and adds Node's process metrics (CPU, memory, event loop) once. */
function useSource(pool: Pool): void {
  source = pool;
  if (!processMetrics) {
    processMetrics = true;
    client.collectDefaultMetrics({ register: registry, prefix: 'assay_' });
  }
}

export function metricsEnabled(config: Readonly<Config>): boolean {
  return config.operations.metricsToken !== null || config.operations.metricsPort !== null;
}

/** Whether a request may read the metrics: always without a token, else only with `Bearer <token>`. */
function authorised(token: string | null, header: string | undefined): boolean {
  if (token === null) return true;
  return typeof header === 'string' && header.startsWith('Bearer ') && safeEqual(header.slice(7), token);
}

/**
 * On the API: the request histogram (an onResponse hook, callback style, one
 * cached label set per route and status) and, with a token, `GET /metrics`.
 */
export function installMetrics(app: FastifyInstance, config: Readonly<Config>, pool: Pool): void {
  if (!metricsEnabled(config)) return;
  useSource(pool);
  const children = new Map<string, client.Histogram.Internal<'method' | 'route' | 'status'>>();
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    // The route pattern, never the raw URL: ids in paths would make a series per object.
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${request.method} ${route} ${reply.statusCode}`;
    let child = children.get(key);
    if (!child) {
      child = httpDuration.labels(request.method, route, String(reply.statusCode));
      children.set(key, child);
    }
    child.observe(reply.elapsedTime / 1000);
    done();
  });
  const token = config.operations.metricsToken;
  if (token === null) return;
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!authorised(token, request.headers.authorization)) {
      return reply.code(401).header('WWW-Authenticate', 'Bearer').type('text/plain; charset=utf-8').send('metrics token required\n');
    }
    return reply.header('cache-control', 'no-store').type(registry.contentType).send(await registry.metrics());
  });
}

/** `GET /metrics` on ASSAY_METRICS_PORT (API and worker processes alike); null when no port is configured. */
export async function startMetricsServer(config: Readonly<Config>, pool: Pool): Promise<{ port: number; close(): Promise<void> } | null> {
  const port = config.operations.metricsPort;
  if (port === null) return null;
  useSource(pool);
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    if (!authorised(config.operations.metricsToken, req.headers.authorization)) {
      res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer' }).end('metrics token required\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, config.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
