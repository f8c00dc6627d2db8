import type { Pool } from '../platform/db.js';
import { createApiKey, findActiveKey } from '../modules/institutions/api-keys.js';
import { createInstitution } from '../modules/institutions/institutions.js';
import { createTest, publishTest } from '../modules/tests/tests-service.js';
import { DEMO_TESTS } from './demo-tests.js';

export const DEMO_INSTITUTION = 'Demo University';
export const DEMO_CALLBACK_DOMAIN = 'partner.example';

export interface DemoSeed {
  institutionId: string;
  apiKey: string;
  apiKeyIsNew: boolean;
  testIds: string[];
}

/**
 * Seeds the demo, idempotently: "Demo University" (callback domain
 * partner.example), the three demo tests published to it, and an API key.
 * `knownKey` is a demo key created earlier; it is reused while it still
 * works, otherwise a new key is made (the database keeps only hashes, so a
 * lost key cannot be shown again).
 */
export async function seedDemo(pool: Pool, knownKey?: string): Promise<DemoSeed> {
  const existing = await pool.query<{ id: string }>('SELECT id FROM institutions WHERE name = $1 ORDER BY created_at, id LIMIT 1', [DEMO_INSTITUTION]);
  const institutionId =
    existing.rows[0]?.id ?? (await createInstitution(pool, { name: DEMO_INSTITUTION, callbackDomains: [DEMO_CALLBACK_DOMAIN] })).institutionId;

  const published = await pool.query<{ test_id: string }>(
    'SELECT test_id FROM publications WHERE institution_id = $1 ORDER BY published_at, test_id',
    [institutionId],
  );
  let testIds = published.rows.map((r) => r.test_id);
  if (testIds.length === 0) {
    testIds = [];
    for (const input of DEMO_TESTS) {
      const test = await createTest(pool, input);
      await publishTest(pool, test.testId, institutionId);
      testIds.push(test.testId);
    }
  }

  const reusable = knownKey ? await findActiveKey(pool, knownKey) : null;
  if (knownKey && reusable && reusable.institutionId === institutionId) {
    return { institutionId, apiKey: knownKey, apiKeyIsNew: false, testIds };
  }
  const { apiKey } = await createApiKey(pool, institutionId, 'demo');
  return { institutionId, apiKey, apiKeyIsNew: true, testIds };
}
