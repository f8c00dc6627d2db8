import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../../src/platform/db.js';
import { systemClock } from '../../src/platform/clock.js';
import { createJobWorker } from '../../src/platform/job-worker.js';
import { defineJob, enqueueJob } from '../../src/platform/jobs.js';
import { createTestDatabase } from '../helpers/database.js';
import { migrate } from '../../src/platform/migrate.js';

/**
 * Workers wake for their own work: the NOTIFY of an enqueued job carries its
 * kind, and a worker that does not run that kind spends no claim statement on
 * it (with several processes, each notification used to wake every worker).
 */
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: Pool;
beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 4);
  await migrate(pool);
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

const ran: string[] = [];
const mine = defineJob({ kind: 'test.wake.mine', payload: Type.Object({ label: Type.String() }), run: async (_ctx: null, p) => void ran.push(p.label) });
const theirs = defineJob({ kind: 'test.wake.theirs', payload: Type.Object({ label: Type.String() }), run: async () => undefined });

describe('job notifications', () => {
  it("a worker is woken by its own kinds' notifications only", async () => {
    let claims = 0;
    // The worker's pool, counting its claim statements.
    const counted = new Proxy(pool, {
      get(target, prop, receiver) {
        if (prop !== 'query') return Reflect.get(target, prop, receiver);
        return (text: unknown, ...rest: unknown[]) => {
          if (typeof text === 'string' && text.includes('locked_by = $4, attempts = attempts + 1')) claims++;
          return (target.query as (...a: unknown[]) => unknown)(text, ...rest);
        };
      },
    });
    // No poll within the test's time: only notifications wake it.
    const worker = createJobWorker({ pool: counted, connectionString: db.url, clock: systemClock, jobs: [mine], context: null, pollIntervalMs: 600_000 });
    await worker.start();
    try {
      await new Promise((r) => setTimeout(r, 300));
      const before = claims;
      for (let i = 0; i < 10; i++) await enqueueJob(pool, theirs, { label: `t${i}` });
      await new Promise((r) => setTimeout(r, 500));
      expect(claims - before).toBe(0);

      await enqueueJob(pool, mine, { label: 'm1' });
      const sent = performance.now();
      while (!ran.includes('m1') && performance.now() - sent < 5_000) await new Promise((r) => setTimeout(r, 20));
      expect(ran).toContain('m1');
      expect(claims - before).toBeGreaterThan(0);
    } finally {
      await worker.stop();
    }
  });
});
