import { AppError, notFound } from '../../platform/errors.js';
import type { Pool, Queryable } from '../../platform/db.js';
import { checkTestInput } from './authoring.js';
import type { TestInput } from './schemas.js';
import * as repo from './tests-repo.js';
import { existingAssetIds } from './content-assets/assets-repo.js';
import { markdownTexts, testAssetIds } from './content/content-checks.js';
import { checkTextsOffLoop } from './content/text-checks-off-loop.js';
import { withAuditEntry, type AuditContext } from '../staff/audit.js';
import { keepSourceHashes } from './translations/translation-store.js';

export type { TestVersion, TestSummary, AdminTestView } from './tests-repo.js';
export { findPublishedTestAndCallbackDomains } from './published-version.js';
export { findPublishedTest, getCurrentTestVersion, getTestVersionById, listAllTests, listTestTitles } from './tests-repo.js';

/**
 * The authoring rules, with the operators' assets that the texts name looked
 * up first; texts the process has not seen, past a few, are checked on the
 * worker pool (a full pool: 503, nothing written).
 */
async function checkOperatorTest(db: Queryable, input: TestInput) {
  await checkTextsOffLoop(markdownTexts(input));
  return checkTestInput(input, await existingAssetIds(db, testAssetIds(input), null));
}

/** Creates a test (version 1) and answers with it as the operator API shows it, read back once created. */
export async function createTest(pool: Pool, input: TestInput, audit?: AuditContext): Promise<repo.AdminTestView> {
  const { testId } = await createTestReturningIds(pool, input, audit);
  return (await repo.getAdminTest(pool, testId))!;
}

/**
 * Checks, inserts (version 1) and records `test.created`, answering with the id, the version and the
 * questions' ids in order from what it inserted: an import needs no more, and reading a test of hundreds
 * of questions back parses all of its content on the API's event loop.
 */
export async function createTestReturningIds(pool: Pool, input: TestInput, audit?: AuditContext): Promise<{ testId: string; version: number; questionIds: string[] }> {
  const content = await checkOperatorTest(pool, input);
  return withAuditEntry(
    pool,
    audit,
    async (db) => ({ testId: await repo.insertTest(db, input, content), version: 1, questionIds: content.questions.map((q) => q.id) }),
    (t) => ({ action: 'test.created', objectType: 'test', objectId: t.testId, institutionId: null, details: { title: input.title, version: t.version } }),
  );
}

export async function updateTest(pool: Pool, testId: string, input: TestInput, audit?: AuditContext): Promise<repo.AdminTestView> {
  const content = await checkOperatorTest(pool, input);
  return withAuditEntry(
    pool,
    audit,
    async (db) => {
      // A translated text sent again unchanged keeps the hash of the source it was translated from, so it reads stale once that source changed.
      const previous = input.translations ? ((await repo.getCurrentTestVersion(db, testId))?.translations ?? {}) : {};
      const checked = { ...content, translations: keepSourceHashes(content.translations, previous) };
      if (!(await repo.insertNewVersion(db, testId, input, checked))) throw notFound('test');
      return (await repo.getAdminTest(db, testId))!;
    },
    (t) => ({ action: 'test.updated', objectType: 'test', objectId: t.testId, institutionId: null, details: { title: t.title, version: t.version } }),
  );
}

export async function getTest(db: Queryable, testId: string): Promise<repo.AdminTestView> {
  const test = await repo.getAdminTest(db, testId);
  if (!test) throw notFound('test');
  return test;
}

export async function publishTest(db: Queryable, testId: string, institutionId: string, audit?: AuditContext): Promise<void> {
  await withAuditEntry(
    db,
    audit,
    async (q) => {
      const outcome = await repo.publish(q, testId, institutionId);
      if (outcome === 'not_found') throw notFound('test or institution');
      if (outcome === 'owned_elsewhere') throw new AppError('invalid_state', 'This test belongs to another institution and is published to it only.');
    },
    () => ({ action: 'test.published', objectType: 'test', objectId: testId, institutionId }),
  );
}

export async function unpublishTest(db: Queryable, testId: string, institutionId: string, audit?: AuditContext): Promise<void> {
  await withAuditEntry(
    db,
    audit,
    async (q) => {
      if (!(await repo.unpublish(q, testId, institutionId))) throw notFound('test or institution');
    },
    () => ({ action: 'test.unpublished', objectType: 'test', objectId: testId, institutionId }),
  );
}

export function listTestsForPartner(db: Queryable, institutionId: string, page: { limit: number; offset: number }) {
  return repo.listPublishedTests(db, institutionId, page);
}
