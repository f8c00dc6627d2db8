import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/platform/clock.js';
import { createPool, type Pool } from '../../src/platform/db.js';
import { createBatchedStore, createRateLimitStore } from '../../src/platform/http/rate-limit-store.js';
import { buildServer, serverContext } from '../../src/server.js';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';

/**
 * ASSAY_RATE_LIMIT_STORE=batched: API processes (apps, or stores, each with
 * its own pool as separate processes would have) answer from their own copy
 * of a key's bucket and sync it with PostgreSQL every 100 ms. The bound
 * stated in docs/production.md: within one sync period, N processes admit
 * at most (N − 1) × (burst + perSecond × period) more than one bucket would,
 * and that excess is paid back before the key is admitted again.
 */
const operations = { metricsToken: null, metricsPort: null, tracing: { enabled: false, serviceName: 'assay' }, rateLimitStore: 'batched', portal: true } as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('batched rate limit, three processes over HTTP', () => {
  const BURST = 5;
  let h: Harness;
  const pools: Pool[] = [];
  const apps: Array<Harness['app']> = [];
  beforeAll(async () => {
    // One token per 20 s: no refill lands inside a test, however loaded the machine.
    h = await createHarness({ config: { rateLimit: { perSecond: 0.05, burst: BURST }, operations } });
    apps.push(h.app);
    for (let i = 0; i < 2; i++) {
      const pool = createPool(h.databaseUrl, 4);
      const app = await buildServer(serverContext({ config: h.ctx.config, pool, clock: systemClock }), { logger: false });
      await app.ready();
      pools.push(pool);
      apps.push(app);
    }
  });
  afterAll(async () => {
    for (const app of apps.slice(1)) await app.close();
    for (const pool of pools) await pool.end();
    await h?.close();
  });
  const get = (i: number, t: Tenant) => apps[i]!.inject({ method: 'GET', url: '/api/partner/v1/tests', headers: { authorization: `Bearer ${t.apiKey}` } });

  it('once synced, one process spending the burst leaves none to the others, with correct headers', async () => {
    const t = await h.createTenant('Synced College');
    const first = [];
    for (let i = 0; i < BURST; i++) first.push(await get(0, t));
    expect(first.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(first.map((r) => r.headers['ratelimit-remaining'])).toEqual(['4', '3', '2', '1', '0']);
    await sleep(350); // a few sync periods
    for (const i of [1, 2]) {
      const refused = await get(i, t);
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error.code).toBe('rate_limited');
      expect(refused.headers['ratelimit-limit']).toBe(String(BURST));
      expect(refused.headers['ratelimit-remaining']).toBe('0');
      // One token at 0.05/s: about 20 s away.
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(15);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(21);
    }
  });

  it('hammered through all three at once, admits within the stated bound, and nothing more after the sync', async () => {
    const t = await h.createTenant('Hammered College');
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => get(i % 3, t)));
    const admitted = results.filter((r) => r.statusCode === 200).length;
    expect(results.every((r) => r.statusCode === 200 || r.statusCode === 429)).toBe(true);
    // burst + (N − 1) × (burst + 0.05/s × 0.1 s), rounded down to whole requests.
    expect(admitted).toBeGreaterThanOrEqual(BURST);
    expect(admitted).toBeLessThanOrEqual(BURST + 2 * BURST);
    await sleep(350);
    const later = await Promise.all(Array.from({ length: 30 }, (_, i) => get(i % 3, t)));
    expect(later.filter((r) => r.statusCode === 200)).toHaveLength(0);
  });
});

describe('batched rate limit, the admitted rate of a 5/s key through three processes', () => {
  it('stays within perSecond × T + burst + the sync bound, where separate buckets would admit three times as much', async () => {
    const h = await createHarness();
    const pools = [0, 1, 2].map(() => createPool(h.databaseUrl, 2));
    const limits = { perSecond: 5, burst: 5 };
    const stores = pools.map((pool) => createBatchedStore(limits, pool));
    try {
      const key = `rate-test-${Date.now()}`;
      let admitted = 0;
      const started = performance.now();
      // Every process asks every 10 ms for 3 s: 300 requests each, 900 in all.
      await Promise.all(
        stores.map(async (store) => {
          while (performance.now() - started < 3000) {
            if ((await store.take(key)).allowed) admitted++;
            await sleep(10);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      // The period P of the bound: 100 ms plus a sync's round trip, which a loaded machine stretches.
      const syncPeriod = 0.25;
      const bound = limits.perSecond * seconds + limits.burst + 2 * (limits.burst + limits.perSecond * syncPeriod);
      expect(admitted).toBeLessThanOrEqual(Math.floor(bound));
      // Far less than three separate buckets (3 × (5 × 3 + 5) = 60), and at least what one bucket allows.
      expect(admitted).toBeGreaterThanOrEqual(Math.floor(limits.perSecond * 3 + limits.burst) - 1);
      expect(admitted).toBeLessThan(45);
    } finally {
      for (const s of stores) s.stop();
      for (const p of pools) await p.end();
      await h.close();
    }
  });
});

describe('batched rate limit when the database is away', () => {
  it('keeps answering from the process (fail open to its own bucket), never an error', async () => {
    const h = await createHarness();
    const pool = createPool(h.databaseUrl, 2);
    const limits = { perSecond: 0.05, burst: 3 };
    const store = createBatchedStore(limits, pool);
    try {
      const key = `blip-${Date.now()}`;
      expect((await store.take(key)).allowed).toBe(true);
      await store.sync();
      // The database goes away: every connection of this pool is refused.
      await pool.end();
      const during = [];
      for (let i = 0; i < 4; i++) during.push(await store.take(key));
      await store.sync();
      // Counted in this process meanwhile: the rest of the burst, then 429s with their headers.
      expect(during.map((r) => r.allowed)).toEqual([true, true, false, false]);
      expect(during[3]!.headers['Retry-After']).toBeDefined();
      // A key first seen during the outage does not wait for ever: it is counted here.
      const fresh = await store.take(`${key}-new`);
      expect(fresh.allowed).toBe(true);
    } finally {
      store.stop();
      await h.close();
    }
  });

  it('the exact store fails open the same way: its own bucket in the process, with headers, no error', async () => {
    const h = await createHarness();
    const pool = createPool(h.databaseUrl, 2);
    const warnings: string[] = [];
    const store = createRateLimitStore('postgres', { perSecond: 0.05, burst: 2 }, pool, { warn: (_o, m) => warnings.push(m ?? '') });
    try {
      expect((await store.take('exact-blip')).allowed).toBe(true);
      await pool.end();
      const during = [];
      for (let i = 0; i < 3; i++) during.push(await store.take('exact-blip'));
      expect(during.map((r) => r.allowed)).toEqual([true, true, false]);
      expect(during[2]!.headers['Retry-After']).toBeDefined();
      expect(warnings).toHaveLength(1); // once per outage, not per request
    } finally {
      store.stop();
      await h.close();
    }
  });

  it('writes the tokens taken during the outage with the next sync that succeeds', async () => {
    const h = await createHarness();
    const limits = { perSecond: 0.05, burst: 4 };
    let broken = true;
    const real = createPool(h.databaseUrl, 2);
    // A pool whose queries fail while `broken`: the database blips, then answers again.
    const flaky = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop === 'query') return (...args: unknown[]) => (broken ? Promise.reject(new Error('connection refused')) : (target.query as (...a: unknown[]) => unknown)(...args));
        return Reflect.get(target, prop, receiver);
      },
    });
    const store = createBatchedStore(limits, flaky);
    try {
      const key = `blip-later-${Date.now()}`;
      expect((await store.take(key)).allowed).toBe(true); // first seen while down: counted here
      expect((await store.take(key)).allowed).toBe(true);
      broken = false;
      await store.sync();
      const { rows } = await real.query('SELECT tokens FROM rate_limit_buckets WHERE key = $1', [key]);
      expect(rows[0].tokens).toBeCloseTo(2, 1);
    } finally {
      store.stop();
      await real.end();
      await h.close();
    }
  });
});
