import type { Queryable } from '../../platform/db.js';

/** The test versions of a student's assignments in their institution (what their pages may show, assets included). */
export async function studentTestVersionIds(db: Queryable, institutionId: string, userId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT DISTINCT test_version_id AS id FROM assignments WHERE institution_id = $1 AND user_id = $2',
    [institutionId, userId],
  );
  return rows.map((r) => r.id);
}
