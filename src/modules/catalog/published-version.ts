import type { Queryable } from '../../platform/db.js';

/**
 * What creating an assignment checks first, in one round trip: the id of the
 * test's current version if it is published to the institution (else null),
 * and the institution's callback domains (sorted, as getCallbackDomains
 * returns them). Only the ids: the create answers with nothing else of the
 * test, and every column more is a value pg builds on each create.
 */
export async function findPublishedTestAndCallbackDomains(
  db: Queryable,
  institutionId: string,
  testId: string,
): Promise<{ test: { testId: string; testVersionId: string } | null; callbackDomains: string[] }> {
  // A left join: the version's id is null when the test is not published to the institution.
  const { rows } = await db.query<{ domains: string[]; test_version_id: string | null }>({
    name: 'find-published-version-and-domains',
    text: `SELECT d.domains, tv.id AS test_version_id
       FROM (SELECT coalesce(array_agg(domain ORDER BY domain), '{}') AS domains FROM callback_domains WHERE institution_id = $1) d
       LEFT JOIN (publications p
                  JOIN tests t ON t.id = p.test_id AND t.deleted_at IS NULL
                  JOIN test_versions tv ON tv.test_id = t.id AND tv.version = t.current_version)
         ON p.institution_id = $1 AND p.test_id = $2`,
    values: [institutionId, testId],
  });
  const r = rows[0]!;
  return { test: r.test_version_id === null ? null : { testId, testVersionId: r.test_version_id }, callbackDomains: r.domains };
}
