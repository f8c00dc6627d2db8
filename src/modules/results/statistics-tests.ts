import type { Queryable } from '../../platform/db.js';

export interface StatisticsTestRow {
  testId: string;
  /** The newest published version's title. */
  title: string;
  /** The newest published version. */
  version: number;
  /** Live attempts counted in the statistics, over every version (the rollup's totals). */
  attempts: number;
}

/**
 * The tests whose statistics an institution may read (the same rule as
 * institutionSeesTest: published to it, or assigned by it, so a withdrawn
 * publication leaves its results), with at least one published version, by
 * title. The tests an institution assigned are found by skipping through the
 * (institution, test) index, one probe per test, whatever the number of
 * assignments; the attempts are the rollup's totals, a few rows per version.
 */
export async function listStatisticsTests(db: Queryable, institutionId: string, page: { limit: number; offset: number }): Promise<{ data: StatisticsTestRow[]; total: number }> {
  const { rows } = await db.query<{ test_id: string; title: string; version: number; attempts: string; total: string }>(
    `WITH RECURSIVE assigned AS (
       SELECT min(test_id) AS test_id FROM assignments WHERE institution_id = $1
       UNION ALL
       SELECT (SELECT min(a.test_id) FROM assignments a WHERE a.institution_id = $1 AND a.test_id > s.test_id)
         FROM assigned s WHERE s.test_id IS NOT NULL),
     seen AS (
       SELECT test_id FROM assigned WHERE test_id IS NOT NULL
       UNION
       SELECT test_id FROM publications WHERE institution_id = $1)
     SELECT seen.test_id, v.title, v.version, coalesce(r.n, 0)::text AS attempts, count(*) OVER ()::text AS total
       FROM seen
       JOIN LATERAL (SELECT title, version FROM test_versions tv WHERE tv.test_id = seen.test_id AND tv.version > 0 ORDER BY tv.version DESC LIMIT 1) v ON true
       LEFT JOIN LATERAL (
         SELECT sum(rr.n) AS n FROM result_rollup rr JOIN test_versions tv ON tv.id = rr.test_version_id
          WHERE rr.institution_id = $1 AND rr.kind = 'total' AND tv.test_id = seen.test_id) r ON true
      ORDER BY lower(v.title), seen.test_id
      LIMIT $2 OFFSET $3`,
    [institutionId, page.limit, page.offset],
  );
  return {
    data: rows.map((r) => ({ testId: r.test_id, title: r.title, version: r.version, attempts: Number(r.attempts) })),
    total: Number(rows[0]?.total ?? 0),
  };
}
