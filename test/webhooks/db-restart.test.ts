import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/platform/clock.js';
import { freezeConfig, parseConfig } from '../../src/platform/config.js';
import { createPool, withTransaction, type Pool } from '../../src/platform/db.js';
import { freePort, startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/platform/embedded-db.js';
import { migrate } from '../../src/platform/migrate.js';
import { createApiKey } from '../../src/modules/institutions/api-keys.js';
import { createInstitution } from '../../src/modules/institutions/institutions.js';
import { applyTransition } from '../../src/modules/lifecycle/apply-transition.js';
import { createTest, publishTest } from '../../src/modules/catalog/tests-service.js';
import { createWebhookDispatcher } from '../../src/modules/webhooks/dispatcher.js';
import { buildServer, serverContext } from '../../src/server.js';
import { ADMIN_TOKEN, AUTO_TEST } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { fastWebhooks } from '../helpers/webhook-setup.js';
import { HARNESS_SECRET } from '../helpers/worker-process.js';

/**
 * PostgreSQL itself restarts while events are being produced and delivered.
 * This test runs its own embedded PostgreSQL (in a temporary folder, on a
 * fixed port so its URL survives the restart) and the service on it, as
 * `npm start` does: API and dispatcher in one process.
 */
let dir: string;
let port: number;
let db: EmbeddedDatabase;
let pool: Pool;
let rx: Receiver;
let app: Awaited<ReturnType<typeof buildServer>>;
let dispatcher: ReturnType<typeof createWebhookDispatcher>;
let apiKey: string;
let testId: string;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-restart-'));
  port = await freePort();
  db = await startEmbeddedDatabase({ dataDir: dir, port, log: () => undefined });
  pool = createPool(db.url, 10);
  await migrate(pool);
  const config = freezeConfig({
    ...parseConfig({}),
    databaseUrl: db.url,
    adminToken: ADMIN_TOKEN,
    secrets: [HARNESS_SECRET],
    logLevel: 'silent',
    allowInsecureUrls: true,
    rateLimit: { perSecond: 10_000, burst: 10_000 },
    webhooks: fastWebhooks({ retryScheduleMs: [0, 200, 400, 800, 1000, 1500, 2000, 3000], leaseMs: 1500 }),
  });
  const ctx = serverContext({ config, pool, clock: systemClock });
  app = await buildServer(ctx, { logger: false });
  const inst = await createInstitution(pool, { name: 'Restart College', callbackDomains: ['restart.example'] });
  apiKey = (await createApiKey(pool, inst.institutionId, 'test')).apiKey;
  testId = (await createTest(pool, AUTO_TEST)).testId;
  await publishTest(pool, testId, inst.institutionId);
  rx = await startReceiver();
  const res = await app.inject({
    method: 'POST',
    url: '/api/partner/v1/webhook-endpoints',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ url: rx.url('/restart') }),
  });
  expect(res.statusCode).toBe(201);
  rx.setSecrets('/restart', [res.json().secret]);
  dispatcher = createWebhookDispatcher({ connectionString: db.url, clock: systemClock, config });
  await dispatcher.start();
}, 120_000);

afterAll(async () => {
  await dispatcher?.stop();
  await app?.close();
  await rx?.close();
  await pool?.end().catch(() => undefined);
  await db?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** One exam.started event, retried until the service accepts it; returns its id once its transaction has committed. */
async function produceOne(n: number): Promise<string> {
  for (;;) {
    try {
      const created = await app.inject({
        method: 'POST',
        url: '/api/partner/v1/assignments',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': `restart-${n}` },
        payload: JSON.stringify({ externalUserId: `u-${n}`, testId, user: { email: 'x@restart.example' }, callbackUrl: 'https://restart.example/r' }),
      });
      if (created.statusCode !== 201) throw new Error(`create answered ${created.statusCode}`);
      const assignmentId = created.json().assignmentId;
      const outcome = await withTransaction(pool, (tx) => applyTransition(tx, assignmentId, [{ type: 'start' }], new Date()));
      if (outcome.ok) return outcome.events[0]!.id;
      // Committed on an earlier try whose answer was lost: the event is in the database.
      const { rows } = await pool.query("SELECT id FROM events WHERE assignment_id = $1 AND type = 'exam.started'", [assignmentId]);
      return rows[0].id;
    } catch {
      await sleep(100);
    }
  }
}

describe('database restart', () => {
  it('delivers every committed event when PostgreSQL restarts in the middle of production and delivery', async () => {
    const acknowledged: string[] = [];
    let n = 0;
    const producer = (async () => {
      while (acknowledged.length < 60) acknowledged.push(await produceOne(n++));
    })();

    while (acknowledged.length < 20) await sleep(10);
    await db.stop();
    await sleep(500);
    db = await startEmbeddedDatabase({ dataDir: dir, port, log: () => undefined });
    await producer;

    const { rows } = await pool.query("SELECT id FROM events WHERE type = 'exam.started'");
    const stored = rows.map((r) => r.id as string);
    expect(stored).toEqual(expect.arrayContaining(acknowledged));
    await rx.waitFor(() => stored.every((id) => rx.deliveredIds('/restart').has(id)), 30_000, 'every stored event');
    expect(rx.received.filter((r) => r.path === '/restart').every((r) => r.verifiedWith[0])).toBe(true);
    const until = Date.now() + 10_000;
    let pending = -1;
    while (Date.now() < until) {
      pending = (await pool.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'succeeded'")).rows[0].n;
      if (pending === 0) break;
      await sleep(50);
    }
    expect(pending).toBe(0);
  }, 60_000);
});
