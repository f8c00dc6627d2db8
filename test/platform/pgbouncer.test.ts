import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boot } from '../../src/platform/boot.js';
import { createPool, type Pool } from '../../src/platform/db.js';
import { statementTimeoutMismatch } from '../../src/platform/session-connection.js';
import { resultsCsv } from '../../src/modules/results/results-csv.js';
import { buildServer, serverContext } from '../../src/server.js';
import { assignmentBody, createHarness, type Harness } from '../helpers/harness.js';
import { hasPgbouncer, startPgbouncer, type PgBouncer } from '../helpers/pgbouncer.js';
import { ALL_TYPES_TEST, createPublishedTest, Student } from '../helpers/student.js';
import { fastWebhooks, registerEndpoint, startDispatcher, type Dispatcher } from '../helpers/webhook-setup.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

/**
 * Assay with its pool (DATABASE_URL) on a real PgBouncer in transaction mode
 * and its session work (LISTEN, readiness, the webhook dispatcher) on the
 * direct URL (ASSAY_DATABASE_SESSION_URL): the core paths work, statements
 * are still cut by statement_timeout, and PostgreSQL sees PgBouncer's pool
 * size, not the sum of the processes' pools.
 */
const STATEMENT_TIMEOUT_MS = 1_500;
const PGBOUNCER_POOL = 5;

describe.skipIf(!hasPgbouncer)('Assay through a real PgBouncer in transaction mode', () => {
  let pgb: PgBouncer;
  let h: Harness;
  let rx: Receiver;
  let dispatcher: Dispatcher;

  beforeAll(async () => {
    const direct = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
    pgb = await startPgbouncer({ serverUrl: direct.toString(), poolSize: PGBOUNCER_POOL, statementTimeoutMs: STATEMENT_TIMEOUT_MS });
    h = await createHarness({
      poolUrlFor: (url) => pgb.through(url),
      config: { allowInsecureUrls: true, webhooks: fastWebhooks(), dbStatementTimeoutMs: STATEMENT_TIMEOUT_MS },
    });
    rx = await startReceiver();
    // The worker's dispatcher as worker.ts starts it: on the session URL (h.databaseUrl is the direct one).
    dispatcher = startDispatcher(h);
    await dispatcher.start();
  }, 60_000);

  afterAll(async () => {
    await dispatcher?.stop();
    await rx?.close();
    await h?.close();
    await pgb?.stop();
  });

  it('the pool goes through PgBouncer, LISTEN and readiness connect directly', async () => {
    expect(h.ctx.config.databaseUrl).toContain(`:${pgb.port}/`);
    expect(h.ctx.config.databaseSessionUrl).toBe(h.databaseUrl);
    const ready = await h.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode, ready.body).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'ready', database: 'up' });
  });

  it('named prepared statements from many clients over few server connections all answer', async () => {
    // pg prepares a named statement once per client connection; through a transaction-mode pooler the next
    // server connection does not know it. The pool sends them unnamed, so every one of these answers.
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => h.pool.query({ name: 'pgbouncer-named-probe', text: 'SELECT $1::int + 0 AS n', values: [i] })),
    );
    expect(results.map((r) => r.rows[0].n)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('statement_timeout still cuts a slow statement through PgBouncer, and boot would notice if it did not', async () => {
    const started = Date.now();
    const err = await h.pool.query('SELECT pg_sleep(5)').then(
      () => null,
      (e: { code?: string }) => e,
    );
    expect(err?.code).toBe('57014'); // query_canceled by statement_timeout
    expect(Date.now() - started).toBeLessThan(4_500);
    expect(await statementTimeoutMismatch(h.pool, STATEMENT_TIMEOUT_MS)).toBeNull();
    expect(await statementTimeoutMismatch(h.pool, 60_000)).toMatch(/connect_query/);
  });

  it('partner API, student journey and webhook delivery work end to end', async () => {
    const list = await h.partner(h.a, 'GET', '/api/partner/v1/tests');
    expect(list.statusCode, list.body).toBe(200);
    const testId = await createPublishedTest(h, h.a, ALL_TYPES_TEST);
    expect((await h.partner(h.a, 'GET', '/api/partner/v1/tests')).json().data.map((t: { testId: string }) => t.testId)).toContain(testId);
    await registerEndpoint(h, h.a, rx, '/pgb');

    const body = { externalUserId: 'pgb-1', testId, user: { email: 'pgb@example.org', name: 'Pat' }, callbackUrl: h.a.callbackUrl };
    const first = await h.partner(h.a, 'POST', '/api/partner/v1/assignments', body, { 'idempotency-key': 'pgb-key-1' });
    expect(first.statusCode, first.body).toBe(201);
    const replay = await h.partner(h.a, 'POST', '/api/partner/v1/assignments', body, { 'idempotency-key': 'pgb-key-1' });
    expect(replay.json().assignmentId).toBe(first.json().assignmentId);
    const { assignmentId, startUrl } = first.json() as { assignmentId: string; startUrl: string };
    const read = await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${assignmentId}`);
    expect(read.statusCode).toBe(200);
    expect(read.json().status).toBe('assigned');

    const s = new Student(h);
    expect(await s.start(startUrl)).toBe(assignmentId);
    await s.page(assignmentId);
    for (let version = 1; version <= 5; version++) {
      const saved = await s.save(assignmentId, [
        { questionId: 'sc', value: 'a', version },
        { questionId: 'nu', value: String(3 + version / 100), version },
      ]);
      expect(saved.statusCode, saved.body).toBe(200);
    }
    const submitted = await s.submit(assignmentId);
    expect(submitted.statusCode, submitted.body).toBe(303);
    await h.runJobs();
    // The essay waits for a reviewer: submitted and auto-marked as far as it goes.
    expect((await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${assignmentId}`)).json().status).toBe('marking');

    // Delivered by the dispatcher (woken through its direct LISTEN) from the rows the app wrote through PgBouncer.
    const { rows } = await h.pool.query<{ id: string; type: string }>('SELECT id, type FROM events WHERE assignment_id = $1 ORDER BY sequence', [assignmentId]);
    expect(rows.map((r) => r.type)).toEqual(['exam.started', 'exam.completed']);
    await rx.waitFor(() => rows.every((e) => rx.deliveredIds('/pgb').has(e.id)), 10_000, 'both events at /pgb');
    const delivered = rx.received.filter((r) => r.path === '/pgb' && r.answered === 200);
    expect(delivered.map((r) => r.json.type).sort()).toEqual(['exam.completed', 'exam.started']);
    expect(delivered.every((r) => r.verifiedWith[0] === true)).toBe(true);
  });

  it('a key revoked by another process is refused here within 2 s: the LISTEN connection is direct', async () => {
    const t = await h.createTenant('Pooled Revocation College');
    const listTests = () => h.partner(t, 'GET', '/api/partner/v1/tests');
    expect((await listTests()).statusCode).toBe(200); // cached in this process now
    // Another process (another API node, the CLI) revokes through the pooler, as its pool would: only the
    // NOTIFY reaches this process (a revocation inside this process also clears its caches directly).
    const other = new pg.Client({ connectionString: pgb.through(h.databaseUrl) });
    await other.connect();
    await other.query(
      `WITH revoked AS (UPDATE api_keys SET revoked_at = now() WHERE id = $1 RETURNING id)
       SELECT pg_notify('assay_api_keys', id) FROM revoked`,
      [t.keyId],
    );
    await other.end();
    const started = Date.now();
    while ((await listTests()).statusCode !== 401) {
      expect(Date.now() - started, 'revocation not noticed').toBeLessThan(2_000);
      await new Promise((r) => setTimeout(r, 20));
    }
  });

  it('the results export streams from its cursor in several batches through PgBouncer, while other statements run beside it', async () => {
    // pg-cursor sends no Sync between batches, so PgBouncer keeps the cursor's server connection linked to it until the end.
    for (let i = 0; i < 5; i++) {
      const res = await h.partner(h.b, 'POST', '/api/partner/v1/assignments', assignmentBody(h.b, { externalUserId: `csv-${i}` }));
      expect(res.statusCode, res.body).toBe(201);
    }
    const stream = await resultsCsv(h.pool, { institutionId: h.b.institutionId }, { batch: 1 });
    let text = '';
    for await (const chunk of stream) {
      text += chunk;
      // Other clients' statements meanwhile take PgBouncer's other server connections (and return them).
      await Promise.all(Array.from({ length: 12 }, () => h.pool.query('SELECT 1')));
    }
    const lines = text.trim().split('\r\n');
    expect(lines).toHaveLength(6);
    expect(lines.slice(1).map((l) => l.split(',')[1]).sort()).toEqual(['csv-0', 'csv-1', 'csv-2', 'csv-3', 'csv-4']);
  });

  it('a request whose statement waits past PgBouncer’s query_wait_timeout answers 503 unavailable with Retry-After', async () => {
    const busy = await startPgbouncer({ serverUrl: h.databaseUrl, poolSize: 1, queryWaitTimeoutS: 1, statementTimeoutMs: STATEMENT_TIMEOUT_MS });
    const holder = new pg.Client({ connectionString: busy.through(h.databaseUrl) });
    await holder.connect();
    const other = await appInstance(h, busy, 2);
    try {
      // The only server connection is held, by an open transaction, for as long as the request takes: in transaction
      // mode it stays the holder's until COMMIT. (A statement sleeping just under the statement timeout held it for
      // 1.4 s, and PgBouncer, which looks at waiting clients three times a second, sometimes let the request through.)
      await holder.query('BEGIN');
      await holder.query('SELECT 1');
      const started = Date.now();
      const res = await other.app.inject({ method: 'GET', url: '/api/partner/v1/tests', headers: { authorization: `Bearer ${h.a.apiKey}` } });
      expect(res.statusCode, res.body).toBe(503);
      expect(res.headers['retry-after']).toBeDefined();
      expect(res.json().error.code).toBe('unavailable');
      expect(Date.now() - started).toBeLessThan(STATEMENT_TIMEOUT_MS + 1_000);
      await holder.query('COMMIT');
    } finally {
      await other.close();
      await holder.end().catch(() => undefined);
      await busy.stop();
    }
  }, 30_000);

  it('boot through a PgBouncer that drops statement_timeout says so, naming both values', async () => {
    // No connect_query: the startup parameter is ignored and the server connections keep PostgreSQL's default (none).
    const bare = await startPgbouncer({ serverUrl: h.databaseUrl, poolSize: 2 });
    const notes: string[] = [];
    const booted = await boot({
      allowStartEmbedded: false,
      env: {
        DATABASE_URL: bare.through(h.databaseUrl),
        ASSAY_DATABASE_SESSION_URL: h.databaseUrl,
        ASSAY_ADMIN_TOKEN: 'boot-admin-token-0123456789abcdef',
        ASSAY_SECRET: 'boot-secret-0123456789abcdef0123456789abcdef',
        ASSAY_DB_STATEMENT_TIMEOUT_MS: '60000',
      },
      log: (m) => notes.push(m),
    });
    try {
      expect(booted.sessionUrl).toBe(h.databaseUrl);
      expect(notes.join('\n')).toMatch(/statement_timeout through DATABASE_URL is 0 ms, not ASSAY_DB_STATEMENT_TIMEOUT_MS \(60000 ms\)/);
    } finally {
      await booted.shutdownDatabase();
      await bare.stop();
    }
  }, 30_000);

  it('3 instances × pool 10 hold 30 client connections while PostgreSQL sees at most PgBouncer’s 5 server connections', async () => {
    const others = [await appInstance(h, pgb, 10), await appInstance(h, pgb, 10)];
    const pools = [h.pool, ...others.map((o) => o.pool)];
    const counter = new pg.Client({ connectionString: h.databaseUrl, application_name: 'assay-test-counter' });
    await counter.connect();
    try {
      // Every client connection of every pool busy at once: each waits its turn for one of PgBouncer's server connections.
      const burst = pools.flatMap((pool) => Array.from({ length: 10 }, () => pool.query('SELECT pg_sleep(0.2)')));
      let peakPooled = 0;
      let peakClients = 0;
      const sample = async () => {
        // The pool's server connections carry no application_name; LISTEN, readiness and this counter do (assay-…).
        const { rows } = await counter.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND backend_type = 'client backend' AND application_name NOT LIKE 'assay-%'`,
        );
        peakPooled = Math.max(peakPooled, rows[0]!.n);
        peakClients = Math.max(peakClients, pools.reduce((sum, p) => sum + p.totalCount, 0));
      };
      let done = false;
      const all = Promise.all(burst).finally(() => (done = true));
      while (!done) {
        await sample();
        await new Promise((r) => setTimeout(r, 25));
      }
      await all;
      expect(peakClients).toBe(30);
      expect(peakPooled).toBeGreaterThan(0);
      expect(peakPooled).toBeLessThanOrEqual(PGBOUNCER_POOL);
    } finally {
      await counter.end();
      for (const o of others) await o.close();
    }
  }, 30_000);
});

/** Another API process on the same database: its own pool through PgBouncer, its own LISTEN connections. */
async function appInstance(h: Harness, pgb: PgBouncer, poolSize: number): Promise<{ app: Awaited<ReturnType<typeof buildServer>>; pool: Pool; close(): Promise<void> }> {
  const pool = createPool(pgb.through(h.databaseUrl), poolSize, {
    statementTimeoutMs: h.ctx.config.dbStatementTimeoutMs,
    sessionConnectionString: h.databaseUrl,
  });
  const app = await buildServer(serverContext({ config: h.ctx.config, pool, clock: h.clock }), { logger: false });
  await app.ready();
  return {
    app,
    pool,
    async close() {
      await app.close();
      await pool.end();
    },
  };
}
