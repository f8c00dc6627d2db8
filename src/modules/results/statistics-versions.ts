import type { Queryable } from '../../platform/db.js';

/**
 * A test's published versions, newest first, with their titles: what the Statistics page offers; with the
 * language each declares (null: none) and whether it has translations, which the page marks the texts by.
 */
export async function listStatisticsVersions(db: Queryable, testId: string): Promise<Array<{ version: number; title: string; language: string | null; translated: boolean }>> {
  const { rows } = await db.query<{ version: number; title: string; language: string | null; translated: boolean }>(
    `SELECT version, title, language, translations <> '{}'::jsonb AS translated FROM test_versions WHERE test_id = $1 AND version > 0 ORDER BY version DESC LIMIT 1000`,
    [testId],
  );
  return rows;
}
