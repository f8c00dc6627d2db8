import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, joinTransaction, readAll, withTransaction, type Pool } from '../../src/platform/db.js';
import { createTestDatabase } from '../helpers/database.js';

/** readAll: parallel reads on a pool, one after another on a single connection (no overlapping queries on it). */
describe('readAll', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: Pool;
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.message);
  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url, 4);
    process.on('warning', onWarning);
  });
  afterAll(async () => {
    process.off('warning', onWarning);
    await pool.end();
    await db.drop();
  });

  const reads = (q: Pick<Pool, 'query'>) =>
    [() => q.query('SELECT 1 AS n').then((r) => r.rows[0].n as number), () => q.query("SELECT 'two' AS s").then((r) => r.rows[0].s as string)] as const;

  it('returns the results in order on a pool, a transaction and a joined pool, with no overlapping queries on a connection', async () => {
    expect(await readAll(pool, reads(pool))).toEqual([1, 'two']);
    await withTransaction(pool, async (tx) => {
      expect(await readAll(tx, reads(tx))).toEqual([1, 'two']);
      const joined = joinTransaction(tx);
      expect(await readAll(joined, reads(joined))).toEqual([1, 'two']);
    });
    await new Promise((r) => setImmediate(r));
    expect(warnings.filter((w) => /already executing a query/.test(w))).toEqual([]);
  });

  it('runs them at once on a pool', async () => {
    const started: number[] = [];
    const slow = () => {
      started.push(Date.now());
      return pool.query('SELECT pg_sleep(0.2)').then(() => Date.now());
    };
    const t0 = Date.now();
    await readAll(pool, [slow, slow] as const);
    expect(Date.now() - t0).toBeLessThan(390);
  });
});
