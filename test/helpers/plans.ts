import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { createInstitution } from '../../src/modules/institutions/institutions.js';
import { createTest, findPublishedTest, publishTest } from '../../src/modules/catalog/tests-service.js';
import { createPool, type Pool } from '../../src/platform/db.js';
import { createTestDatabase } from './database.js';
import { AUTO_TEST } from './harness.js';

/**
 * A fresh database for plan tests: one institution with one published test,
 * a pool, and a client whose prepared statements always use their generic
 * plan (`force_generic_plan`), the worst case of the plan cache.
 */
export interface PlanFixture {
  pool: Pool;
  client: pg.Client;
  institutionId: string;
  testId: string;
  testVersionId: string;
  close(): Promise<void>;
}

export async function createPlanFixture(name: string): Promise<PlanFixture> {
  const db = await createTestDatabase();
  const pool = createPool(db.url, 2);
  const institutionId = (await createInstitution(pool, { name, callbackDomains: ['plan.example'] })).institutionId;
  const testId = (await createTest(pool, AUTO_TEST)).testId;
  await publishTest(pool, testId, institutionId);
  const testVersionId = (await findPublishedTest(pool, institutionId, testId))!.testVersionId;
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query('SET plan_cache_mode = force_generic_plan');
  return {
    pool,
    client,
    institutionId,
    testId,
    testVersionId,
    async close() {
      await client.end();
      await pool.end();
      await db.drop();
    },
  };
}

/** Every node of an `EXPLAIN (FORMAT JSON)` plan, depth first: its type, and the index and relation it reads. */
export function planNodes(plan: any): Array<{ type: string; index?: string; relation?: string }> {
  const out: Array<{ type: string; index?: string; relation?: string }> = [];
  const walk = (node: any) => {
    out.push({ type: node['Node Type'], index: node['Index Name'], relation: node['Relation Name'] });
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(plan.Plan);
  return out;
}

/** A PlanFixture made before the file's tests and closed after them; its fields are filled in once beforeAll has run. */
export function usePlanFixture(name: string): PlanFixture {
  const f = {} as PlanFixture;
  beforeAll(async () => {
    Object.assign(f, await createPlanFixture(name));
  });
  afterAll(() => f.close());
  return f;
}

