import type { Pool } from '../platform/db.js';
import { createApiKey, findActiveKey, type KeyMode } from '../modules/institutions/api-keys.js';
import { createInstitution } from '../modules/institutions/institutions.js';
import { createTest, publishTest } from '../modules/catalog/tests-service.js';
import { ensureStaffAccount } from '../modules/staff/staff-service.js';
import { DEMO_TESTS } from './demo-tests.js';

export const DEMO_INSTITUTION = 'Demo University';
export const DEMO_CALLBACK_DOMAIN = 'partner.example';
export const DEMO_OPERATOR_EMAIL = 'operator@assay.local';
export const DEMO_ADMIN_EMAIL = 'admin@demo-university.example';

export interface DemoSeed {
  institutionId: string;
  apiKey: string;
  apiKeyIsNew: boolean;
  /** A test-mode key of the same institution: its own sandbox of assignments, events and endpoints. */
  testApiKey: string;
  testApiKeyIsNew: boolean;
  testIds: string[];
  /** The demo's portal accounts: a platform operator and Demo University's admin. */
  operatorStaffId: string;
  adminStaffId: string;
}

/**
 * Seeds the demo, idempotently: "Demo University" (callback domain
 * partner.example), the demo tests published to it (by title: one missing
 * from an earlier seed is added), a live and a test-mode API key, and two
 * portal accounts (operator@assay.local, admin@demo-university.example).
 * `knownKey` and `knownTestKey` are demo keys created earlier; each is reused
 * while it still works, otherwise a new key is made (the database keeps only
 * hashes, so a lost key cannot be shown again).
 */
export async function seedDemo(pool: Pool, knownKey?: string, knownTestKey?: string): Promise<DemoSeed> {
  const existing = await pool.query<{ id: string }>('SELECT id FROM institutions WHERE name = $1 ORDER BY created_at, id LIMIT 1', [DEMO_INSTITUTION]);
  const institutionId =
    existing.rows[0]?.id ?? (await createInstitution(pool, { name: DEMO_INSTITUTION, callbackDomains: [DEMO_CALLBACK_DOMAIN] })).institutionId;

  // By title, so a demo seeded before a test was added to DEMO_TESTS gains it on the next run, and nothing is made twice.
  const published = await pool.query<{ test_id: string; title: string }>(
    `SELECT p.test_id, tv.title FROM publications p
       JOIN tests t ON t.id = p.test_id JOIN test_versions tv ON tv.test_id = t.id AND tv.version = t.current_version
      WHERE p.institution_id = $1 ORDER BY p.published_at, p.test_id`,
    [institutionId],
  );
  const byTitle = new Map<string, string>();
  for (const r of published.rows) if (!byTitle.has(r.title)) byTitle.set(r.title, r.test_id);
  const testIds: string[] = [];
  for (const input of DEMO_TESTS) {
    let testId = byTitle.get(input.title);
    if (!testId) {
      testId = (await createTest(pool, input)).testId;
      await publishTest(pool, testId, institutionId);
    }
    testIds.push(testId);
  }

  const now = new Date();
  const operator = await ensureStaffAccount(pool, { institutionId: null, email: DEMO_OPERATOR_EMAIL, name: 'Demo Operator', role: 'operator' }, now);
  const admin = await ensureStaffAccount(pool, { institutionId, email: DEMO_ADMIN_EMAIL, name: 'Demo Admin', role: 'admin' }, now);
  const staff = { operatorStaffId: operator.staffId, adminStaffId: admin.staffId };

  const live = await demoKey(pool, institutionId, 'live', knownKey);
  const test = await demoKey(pool, institutionId, 'test', knownTestKey);
  return { institutionId, apiKey: live.key, apiKeyIsNew: live.isNew, testApiKey: test.key, testApiKeyIsNew: test.isNew, testIds, ...staff };
}

/** The known demo key of this mode while it still works for the demo institution, else a new one. */
async function demoKey(pool: Pool, institutionId: string, mode: KeyMode, known: string | undefined): Promise<{ key: string; isNew: boolean }> {
  const reusable = known ? await findActiveKey(pool, known) : null;
  if (known && reusable && reusable.institutionId === institutionId && reusable.livemode === (mode === 'live')) return { key: known, isNew: false };
  const { apiKey } = await createApiKey(pool, institutionId, mode === 'live' ? 'demo' : 'demo (test mode)', undefined, mode);
  return { key: apiKey, isNew: true };
}
