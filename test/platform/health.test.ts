import net from 'node:net';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadinessProbe } from '../../src/platform/readiness.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';

/**
 * Health that never fails together (issue: exam day at scale): a saturated
 * request pool answers its requests 503 + Retry-After within the connection
 * wait, while readiness (on its own connection) stays 200 as long as the
 * database answers, and liveness needs nothing.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ config: { dbConnectWaitMs: 300 } });
});
afterAll(async () => {
  await h.close();
});

describe('a saturated pool', () => {
  it('answers 503 unavailable with Retry-After within the connection wait, while /readyz and /healthz stay 200', async () => {
    // Warm (the first request compiles the route's serialisers), then every connection of the request pool held, as by slow requests.
    expect((await h.partner(h.a, 'GET', '/api/partner/v1/tests')).statusCode).toBe(200);
    const held: pg.PoolClient[] = [];
    for (let i = 0; i < 10; i++) held.push(await h.pool.connect());
    try {
      const t0 = performance.now();
      const res = await h.partner(h.a, 'GET', '/api/partner/v1/tests');
      const took = performance.now() - t0;
      expectError(res, 503, 'unavailable');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(took).toBeLessThan(2_000);

      const ready = await h.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toMatchObject({ status: 'ready', database: 'up' });
      expect(Math.abs(ready.json().clockSkewMs)).toBeLessThan(1_000);
      expect((await h.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      for (const c of held) c.release();
    }
    expect((await h.partner(h.a, 'GET', '/api/partner/v1/tests')).statusCode).toBe(200);
  });
});

describe('the pool limits', () => {
  it('every statement on the pool has the statement timeout', async () => {
    const { createPool } = await import('../../src/platform/db.js');
    const pool = createPool(h.databaseUrl, 1, { statementTimeoutMs: 200 });
    try {
      await expect(pool.query('SELECT pg_sleep(2)')).rejects.toMatchObject({ code: '57014' });
      expect((await pool.query('SHOW statement_timeout')).rows[0].statement_timeout).toBe('200ms');
    } finally {
      await pool.end();
    }
  });
});

describe('the readiness probe', () => {
  it('shares one query among checks that arrive together', async () => {
    const probe = createReadinessProbe(h.databaseUrl);
    try {
      const states = await Promise.all(Array.from({ length: 50 }, () => probe.check()));
      expect(new Set(states).size).toBe(1);
      expect(states[0]).toMatchObject({ status: 'ready', database: 'up' });
    } finally {
      await probe.close();
    }
  });

  it('answers unavailable within its timeout when the database accepts the connection and never answers', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as net.AddressInfo).port;
    const probe = createReadinessProbe(`postgres://postgres@127.0.0.1:${port}/none`, { timeoutMs: 500 });
    try {
      const t0 = performance.now();
      const state = await probe.check();
      expect(performance.now() - t0).toBeLessThan(1_000);
      expect(state).toMatchObject({ status: 'unavailable', database: 'down' });
    } finally {
      await probe.close();
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it('reports the clock skew between the process and the database', async () => {
    // A process clock 90 s behind the database's.
    const probe = createReadinessProbe(h.databaseUrl, { now: () => Date.now() - 90_000 });
    try {
      const state = await probe.check();
      expect(state.status).toBe('ready');
      if (state.status === 'ready') expect(state.clockSkewMs).toBeGreaterThan(89_000);
    } finally {
      await probe.close();
    }
  });

  it('reconnects after its connection is broken (a database restart)', async () => {
    const probe = createReadinessProbe(h.databaseUrl);
    try {
      expect((await probe.check()).status).toBe('ready');
      await h.pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'assay-readiness' AND datname = current_database()`);
      // The first check after may still see the broken connection; the one after reconnects.
      await probe.check();
      expect((await probe.check()).status).toBe('ready');
    } finally {
      await probe.close();
    }
  });
});
