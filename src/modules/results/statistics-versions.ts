import type { Queryable } from '../../platform/db.js';

/** A test's published versions, newest first, with their titles: what the Statistics page offers. */
export async function listStatisticsVersions(db: Queryable, testId: string): Promise<Array<{ version: number; title: string }>> {
  const { rows } = await db.query<{ version: number; title: string }>('SELECT version, title FROM test_versions WHERE test_id = $1 AND version > 0 ORDER BY version DESC LIMIT 1000', [testId]);
  return rows;
}
