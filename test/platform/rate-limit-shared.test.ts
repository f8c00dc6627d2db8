import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/platform/clock.js';
import { createPool, type Pool } from '../../src/platform/db.js';
import type { Config } from '../../src/platform/config.js';
import { buildServer, serverContext } from '../../src/server.js';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';

/**
 * ASSAY_RATE_LIMIT_STORE=postgres: two API processes (two apps, each with
 * its own pool, as two processes would have) on one database keep one
 * key's limit together; the memory store, for contrast, lets each process
 * spend the whole burst.
 */
const BURST = 5;
// One token per 20 s: no refill lands inside a test, however loaded the machine.
const LIMITS = { perSecond: 0.05, burst: BURST };

async function pair(store: Config['operations']['rateLimitStore']) {
  const h = await createHarness({ config: { rateLimit: LIMITS, operations: { metricsToken: null, metricsPort: null, tracing: { enabled: false, serviceName: 'assay' }, rateLimitStore: store, portal: true } } });
  const pool2 = createPool(h.databaseUrl, 4);
  const app2 = await buildServer(serverContext({ config: h.ctx.config, pool: pool2, clock: systemClock }), { logger: false });
  await app2.ready();
  const get = (app: typeof h.app, t: Tenant) =>
    app.inject({ method: 'GET', url: '/api/partner/v1/tests', headers: { authorization: `Bearer ${t.apiKey}` } });
  return {
    h,
    one: (t: Tenant) => get(h.app, t),
    two: (t: Tenant) => get(app2, t),
    async close(pool: Pool = pool2) {
      await app2.close();
      await pool.end();
      await h.close();
    },
  };
}

describe('rate limit shared in PostgreSQL', () => {
  let p: Awaited<ReturnType<typeof pair>>;
  beforeAll(async () => {
    p = await pair('postgres');
  });
  afterAll(() => p?.close());

  it('two API processes together allow one key its burst, then both refuse it', async () => {
    const t = await p.h.createTenant('Shared Limit College');
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < BURST + 3; i++) {
      const res = await (i % 2 === 0 ? p.one(t) : p.two(t));
      statuses.push(res.statusCode);
      remaining.push(String(res.headers['ratelimit-remaining']));
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect(remaining).toEqual(['4', '3', '2', '1', '0', '0', '0', '0']);
    const refused = await p.two(t);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe('rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(1);
    expect(refused.headers['ratelimit-limit']).toBe(String(BURST));
  });

  it('keeps the limit under concurrent requests from both processes (one statement per request)', async () => {
    const t = await p.h.createTenant('Crowded College');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? p.one(t) : p.two(t))));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(BURST);
    expect(results.filter((r) => r.statusCode === 429)).toHaveLength(20 - BURST);
  });

  it('gives every key its own bucket', async () => {
    const a = await p.h.createTenant('Bucket A');
    const b = await p.h.createTenant('Bucket B');
    for (let i = 0; i < BURST; i++) expect((await p.one(a)).statusCode).toBe(200);
    expect((await p.two(a)).statusCode).toBe(429);
    expect((await p.two(b)).statusCode).toBe(200);
  });

  it('refills with time, on the database clock', async () => {
    const t = await p.h.createTenant('Refill College');
    for (let i = 0; i < BURST; i++) await p.one(t);
    expect((await p.two(t)).statusCode).toBe(429);
    // Twenty seconds later by the bucket's clock: one token back.
    await p.h.pool.query(`UPDATE rate_limit_buckets SET updated_at = updated_at - interval '20 seconds' WHERE key = $1`, [t.keyId]);
    expect((await p.two(t)).statusCode).toBe(200);
    expect((await p.one(t)).statusCode).toBe(429);
  });
});

describe('rate limit in memory (the default with the embedded database), for contrast', () => {
  it('lets each process spend the whole burst', async () => {
    const p = await pair('memory');
    try {
      const t = await p.h.createTenant('Per Process College');
      const one = [];
      const two = [];
      for (let i = 0; i < BURST + 1; i++) one.push((await p.one(t)).statusCode);
      for (let i = 0; i < BURST + 1; i++) two.push((await p.two(t)).statusCode);
      expect(one.filter((s) => s === 200)).toHaveLength(BURST);
      expect(two.filter((s) => s === 200)).toHaveLength(BURST);
      expect((await p.h.pool.query('SELECT count(*)::int AS n FROM rate_limit_buckets')).rows[0].n).toBe(0);
    } finally {
      await p.close();
    }
  });
});
