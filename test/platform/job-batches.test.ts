import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../../src/platform/db.js';
import { createJobWorker } from '../../src/platform/job-worker.js';
import { declareJob, defineJob, enqueueJob, handleJobBatch } from '../../src/platform/jobs.js';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';

const clock = manualClock(new Date('2030-03-01T10:00:00Z'));
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ clock });
});
afterAll(async () => {
  await h.close();
});

const batchedJob = declareJob({ kind: 'test.batched', payload: Type.Object({ n: Type.Integer() }, { additionalProperties: false }) });
const batches: number[][] = [];
let failOn = new Set<number>();
const batchedHandler = handleJobBatch(batchedJob, {
  size: 50,
  async run(_ctx: null, items) {
    batches.push(items.map((i) => i.payload.n));
    return new Map(items.filter((i) => failOn.has(i.payload.n)).map((i) => [i.job.id, new Error(`item ${i.payload.n} failed`)]));
  },
});

describe('batched job kinds', () => {
  it('runs due jobs of a batch kind in batches of its size, deletes the successes and retries only the failures', async () => {
    for (let n = 0; n < 120; n++) await enqueueJob(h.pool, batchedJob, { n }, { runAt: clock.now() });
    failOn = new Set([7, 99]);
    const worker = createJobWorker({ pool: h.pool, connectionString: h.databaseUrl, clock, jobs: [batchedHandler], context: null, concurrency: 4 });
    expect(await worker.drain()).toBe(120);
    // Four slots' worth claimed, topped up to 50 per slot: 120 due jobs run as 50 + 50 + 20, each once.
    expect(batches.map((b) => b.length).sort((a, b) => b - a)).toEqual([50, 50, 20]);
    expect(batches.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 120 }, (_, n) => n));
    const { rows } = await h.pool.query(`SELECT payload->>'n' AS n, attempts, last_error FROM jobs WHERE kind = 'test.batched' ORDER BY 1`);
    expect(rows).toEqual([
      { n: '7', attempts: 1, last_error: 'item 7 failed' },
      { n: '99', attempts: 1, last_error: 'item 99 failed' },
    ]);
    // The retry (after its backoff) runs the two alone, as one batch.
    batches.length = 0;
    failOn = new Set();
    clock.advance(2000);
    expect(await worker.drain()).toBe(2);
    expect(batches.map((b) => [...b].sort((x, y) => x - y))).toEqual([[7, 99]]);
    expect((await h.pool.query(`SELECT count(*)::int AS n FROM jobs WHERE kind = 'test.batched'`)).rows[0].n).toBe(0);
  });

  it('fails every job of a batch whose run throws, each keeping its own attempts', async () => {
    const throwing = declareJob({ kind: 'test.batch_throws', payload: Type.Object({ n: Type.Integer() }) });
    const handler = handleJobBatch(throwing, {
      size: 10,
      async run() {
        throw new Error('the whole batch failed');
      },
    });
    for (let n = 0; n < 3; n++) await enqueueJob(h.pool, throwing, { n }, { runAt: clock.now() });
    const worker = createJobWorker({ pool: h.pool, connectionString: h.databaseUrl, clock, jobs: [handler], context: null, concurrency: 1 });
    expect(await worker.drain()).toBe(3);
    const { rows } = await h.pool.query(`SELECT attempts, last_error FROM jobs WHERE kind = 'test.batch_throws'`);
    expect(rows).toEqual(Array.from({ length: 3 }, () => ({ attempts: 1, last_error: 'the whole batch failed' })));
  });
});

describe('the claim', () => {
  it('reads only rows of its own kinds, however many jobs of other kinds are due before them', async () => {
    const mine = defineJob({ kind: 'test.mine', payload: Type.Object({}), run: async () => {} });
    // 20,000 due jobs of a kind this worker does not run, all due before its own.
    await h.pool.query(
      `INSERT INTO jobs (kind, payload, run_at) SELECT 'test.someone_elses', '{}', $1::timestamptz - g * interval '1 second' FROM generate_series(1, 20000) g`,
      [clock.now()],
    );
    await enqueueJob(h.pool, mine, {}, { runAt: clock.now() });
    await h.pool.query('ANALYZE jobs');
    // One connection, so the claim's row reads are this backend's and can be flushed to the statistics at once.
    const single: Pool = createPool(h.databaseUrl, 1);
    try {
      const indexReads = async () => {
        await single.query('SELECT pg_stat_force_next_flush()');
        await single.query('SELECT 1');
        const { rows } = await h.pool.query(`SELECT pg_stat_clear_snapshot(), (SELECT (seq_tup_read + COALESCE(idx_tup_fetch, 0))::int FROM pg_stat_user_tables WHERE relname = 'jobs') AS n`);
        return rows[0].n as number;
      };
      const before = await indexReads();
      const worker = createJobWorker({ pool: single, connectionString: h.databaseUrl, clock, jobs: [mine], context: null, concurrency: 4 });
      expect(await worker.drain()).toBe(1);
      const read = (await indexReads()) - before;
      // The claim and the delete: a handful of rows, not the 20,000 ahead of it (a claim by run time read them all).
      expect(read).toBeLessThan(100);
    } finally {
      await single.end();
      await h.pool.query(`DELETE FROM jobs WHERE kind = 'test.someone_elses'`);
    }
  });
});
