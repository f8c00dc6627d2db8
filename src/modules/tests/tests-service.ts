import { notFound } from '../../platform/errors.js';
import type { Pool, Queryable } from '../../platform/db.js';
import { checkTestInput } from './authoring.js';
import type { TestInput } from './schemas.js';
import * as repo from './tests-repo.js';

export type { TestVersion, TestSummary, AdminTestView } from './tests-repo.js';
export { findPublishedTest, getTestVersionById, listAllTests, listTestTitles } from './tests-repo.js';

export async function createTest(pool: Pool, input: TestInput): Promise<repo.AdminTestView> {
  const questions = checkTestInput(input);
  const testId = await repo.insertTest(pool, input, questions);
  return (await repo.getAdminTest(pool, testId))!;
}

export async function updateTest(pool: Pool, testId: string, input: TestInput): Promise<repo.AdminTestView> {
  const questions = checkTestInput(input);
  if (!(await repo.insertNewVersion(pool, testId, input, questions))) throw notFound('test');
  return (await repo.getAdminTest(pool, testId))!;
}

export async function getTest(db: Queryable, testId: string): Promise<repo.AdminTestView> {
  const test = await repo.getAdminTest(db, testId);
  if (!test) throw notFound('test');
  return test;
}

export async function publishTest(db: Queryable, testId: string, institutionId: string): Promise<void> {
  if (!(await repo.publish(db, testId, institutionId))) throw notFound('test or institution');
}

export async function unpublishTest(db: Queryable, testId: string, institutionId: string): Promise<void> {
  if (!(await repo.unpublish(db, testId, institutionId))) throw notFound('test or institution');
}

export function listTestsForPartner(db: Queryable, institutionId: string, page: { limit: number; offset: number }) {
  return repo.listPublishedTests(db, institutionId, page);
}
