import type { Queryable } from '../../platform/db.js';

/** The score a simulated submit aimed at, read back by a simulated finish_marking (migrations/0016). */
export async function saveScoreTarget(db: Queryable, institutionId: string, assignmentId: string, percent: number): Promise<void> {
  await db.query(
    `INSERT INTO simulated_score_targets (assignment_id, institution_id, percent) VALUES ($1, $2, $3)
     ON CONFLICT (assignment_id) DO UPDATE SET percent = EXCLUDED.percent`,
    [assignmentId, institutionId, percent],
  );
}

export async function findScoreTarget(db: Queryable, institutionId: string, assignmentId: string): Promise<number | undefined> {
  const { rows } = await db.query<{ percent: string }>('SELECT percent FROM simulated_score_targets WHERE institution_id = $1 AND assignment_id = $2', [
    institutionId,
    assignmentId,
  ]);
  return rows[0] ? Number(rows[0].percent) : undefined;
}
