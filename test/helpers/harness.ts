import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { manualClock, systemClock, type Clock } from '../../src/platform/clock.js';
import { freezeConfig, parseConfig, type Config } from '../../src/platform/config.js';
import { createPool, type Pool } from '../../src/platform/db.js';
import { createJobWorker } from '../../src/platform/job-worker.js';
import { createApiKey } from '../../src/modules/institutions/api-keys.js';
import { createInstitution } from '../../src/modules/institutions/institutions.js';
import { createTest, publishTest } from '../../src/modules/catalog/tests-service.js';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { buildServer, serverContext, type ServerContext } from '../../src/server.js';
import { jobContext, workerJobs } from '../../src/worker.js';
import { createTestDatabase } from './database.js';
import { startReadPools } from '../../src/platform/read-replica.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
export const PUBLIC_BASE_URL = 'http://assay.test';

export interface Tenant {
  institutionId: string;
  apiKey: string;
  keyId: string;
  /** A test published to this tenant only. */
  testId: string;
  callbackUrl: string;
}

export const AUTO_TEST: TestInput = {
  title: 'Arithmetic',
  description: 'Auto-marked, results at once',
  durationMinutes: 20,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: 50,
  questions: [
    { type: 'single_choice', prompt: '2 + 2?', points: 1, options: [{ id: 'a', text: '3' }, { id: 'b', text: '4' }], correctOptionId: 'b' },
    { type: 'numeric', prompt: '10 / 4?', points: 1, answer: 2.5 },
  ],
};

export interface Harness {
  app: Awaited<ReturnType<typeof buildServer>>;
  ctx: ServerContext;
  pool: Pool;
  clock: Clock;
  databaseUrl: string;
  a: Tenant;
  b: Tenant;
  /** Runs every background job due now (by the harness clock). */
  runJobs(): Promise<number>;
  partner(tenant: Tenant | string | null, method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  admin(method: string, url: string, body?: unknown): Promise<LightMyRequestResponse>;
  createTenant(name: string, domains?: string[]): Promise<Tenant>;
  close(): Promise<void>;
}

/**
 * A real app on a fresh database with two institutions, A and B, each with
 * an API key, a callback domain and a test published to it alone. Every
 * partner route is exercised against the other tenant's key and objects.
 */
export async function createHarness(
  opts: {
    clock?: Clock;
    config?: Partial<Config>;
    /** A migrated database of the test's own (e.g. on its own primary and standby) instead of a clone of the template. */
    database?: { url: string; drop(): Promise<void> };
    /**
     * The pool's URL for the fresh database's direct one: a transaction-mode pooler in front of it
     * (test/helpers/pgbouncer.ts). The direct URL is then the session URL (LISTEN, readiness, the dispatcher).
     */
    poolUrlFor?: (directUrl: string) => string;
    poolSize?: number;
  } = {},
): Promise<Harness> {
  const db = opts.database ?? (await createTestDatabase());
  const poolUrl = opts.poolUrlFor ? opts.poolUrlFor(db.url) : db.url;
  const pooled = poolUrl !== db.url;
  // Files (proctoring recordings) go to a folder of this harness's own, never the checkout's ./data.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-harness-'));
  const config = freezeConfig({
    ...parseConfig({}),
    dataDir,
    databaseUrl: poolUrl,
    databaseSessionUrl: pooled ? db.url : null,
    adminToken: ADMIN_TOKEN,
    secrets: ['test-secret-0123456789abcdef0123456789abcdef'],
    publicBaseUrl: PUBLIC_BASE_URL,
    logLevel: 'silent',
    rateLimit: { perSecond: 10_000, burst: 10_000 },
    requestLimits: { unauthenticatedPerMinute: 100_000, startLinksPerMinute: 100_000, startLinkOpensPerMinute: 100_000, studentPostsPerMinute: 100_000 },
    ...opts.config,
  });
  const pool = createPool(poolUrl, opts.poolSize ?? 10, {
    connectWaitMs: config.dbConnectWaitMs,
    statementTimeoutMs: config.dbStatementTimeoutMs,
    ...(pooled ? { sessionConnectionString: db.url } : {}),
  });
  const clock = opts.clock ?? systemClock;
  // With config.replica.url: the read replica's pools, checks running, as main.ts starts them.
  const reads = startReadPools(config, pool);
  const ctx = serverContext({ config, pool, clock, reads });
  const app = await buildServer(ctx, { logger: false });
  const worker = createJobWorker({ pool, connectionString: db.url, clock, jobs: workerJobs, context: jobContext(ctx) });

  async function createTenant(name: string, domains = [`${name.toLowerCase().replace(/\W+/g, '-')}.example`]): Promise<Tenant> {
    const inst = await createInstitution(pool, { name, callbackDomains: domains });
    const { apiKey, record } = await createApiKey(pool, inst.institutionId, 'test');
    const test = await createTest(pool, AUTO_TEST);
    await publishTest(pool, test.testId, inst.institutionId);
    return { institutionId: inst.institutionId, apiKey, keyId: record.keyId, testId: test.testId, callbackUrl: `https://${domains[0]}/return` };
  }

  const a = await createTenant('Alpha College');
  const b = await createTenant('Beta Academy');

  return {
    app,
    ctx,
    pool,
    clock,
    databaseUrl: db.url,
    a,
    b,
    createTenant,
    runJobs: () => worker.drain(),
    partner(tenant, method, url, body, headers = {}) {
      const key = typeof tenant === 'string' ? tenant : tenant?.apiKey;
      return app.inject({
        method: method as 'GET',
        url,
        headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
    },
    admin(method, url, body) {
      return app.inject({
        method: method as 'GET',
        url,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
    },
    async close() {
      await worker.stop();
      await app.close();
      await reads?.stop();
      await pool.end();
      await db.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export { manualClock };

/** A valid creation body for the tenant. */
export function assignmentBody(t: Tenant, overrides: Record<string, unknown> = {}) {
  return {
    externalUserId: 'user-1',
    testId: t.testId,
    user: { email: 'student@example.org', name: 'Sam Student' },
    callbackUrl: t.callbackUrl,
    ...overrides,
  };
}
