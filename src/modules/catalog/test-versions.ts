import type { Queryable } from '../../platform/db.js';
import { getTestVersionById, type TestVersion } from './tests-service.js';

/**
 * Test versions are immutable once written (assignments pin them), so the
 * student pages and every autosave can share one in-process copy instead of
 * reading the questions from PostgreSQL each time. Bounded; oldest out first.
 */
const MAX_ENTRIES = 1_000;
const cache = new Map<string, TestVersion>();

/** The version if this process holds it already, without a promise (the autosave's path); else undefined. */
export function cachedTestVersion(testVersionId: string): TestVersion | undefined {
  return cache.get(testVersionId);
}

export async function loadTestVersion(db: Queryable, testVersionId: string): Promise<TestVersion> {
  const hit = cache.get(testVersionId);
  if (hit) return hit;
  const version = await getTestVersionById(db, testVersionId);
  // The assignment row references the version with a foreign key: a miss is corruption, not user error.
  if (!version) throw new Error(`test version ${testVersionId} is missing`);
  if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(testVersionId, version);
  return version;
}
