import type { Queryable } from '../../platform/db.js';

/**
 * Per-institution switches set by operators. `allowProctoringRelaxations`:
 * whether the institution's partners may relax proctoring for one assignment
 * (assignments' `accommodations.proctoring`); off by default, since it weakens
 * supervision and the operator answers for the institution's exams.
 */
export interface InstitutionSettings {
  allowProctoringRelaxations: boolean;
}

/** Null when there is no such institution. */
export async function getInstitutionSettings(db: Queryable, institutionId: string): Promise<InstitutionSettings | null> {
  const { rows } = await db.query<{ allow: boolean }>('SELECT allow_proctoring_relaxations AS allow FROM institutions WHERE id = $1', [institutionId]);
  return rows[0] ? { allowProctoringRelaxations: rows[0].allow } : null;
}

/** Applies the fields given; null when there is no such institution. */
export async function updateInstitutionSettings(
  db: Queryable,
  institutionId: string,
  patch: Partial<InstitutionSettings>,
): Promise<InstitutionSettings | null> {
  const { rows } = await db.query<{ allow: boolean }>(
    `UPDATE institutions SET allow_proctoring_relaxations = COALESCE($2, allow_proctoring_relaxations)
      WHERE id = $1 RETURNING allow_proctoring_relaxations AS allow`,
    [institutionId, patch.allowProctoringRelaxations ?? null],
  );
  return rows[0] ? { allowProctoringRelaxations: rows[0].allow } : null;
}
