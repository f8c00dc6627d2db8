import type { Queryable } from '../../platform/db.js';

/**
 * Per-institution switches set by operators. `allowProctoringRelaxations`:
 * whether the institution's partners may relax proctoring for one assignment
 * (assignments' `accommodations.proctoring`); off by default, since it weakens
 * supervision and the operator answers for the institution's exams.
 * `reportShowsQuestions`: whether a candidate's report lists each question's
 * outcome (docs/results.md); off by default.
 */
export interface InstitutionSettings {
  allowProctoringRelaxations: boolean;
  reportShowsQuestions: boolean;
}

const COLUMNS = 'allow_proctoring_relaxations AS allow, report_shows_questions AS questions';
const view = (r: { allow: boolean; questions: boolean }): InstitutionSettings => ({ allowProctoringRelaxations: r.allow, reportShowsQuestions: r.questions });

/** Null when there is no such institution. */
export async function getInstitutionSettings(db: Queryable, institutionId: string): Promise<InstitutionSettings | null> {
  const { rows } = await db.query<{ allow: boolean; questions: boolean }>(`SELECT ${COLUMNS} FROM institutions WHERE id = $1`, [institutionId]);
  return rows[0] ? view(rows[0]) : null;
}

/** Applies the fields given; null when there is no such institution. */
export async function updateInstitutionSettings(
  db: Queryable,
  institutionId: string,
  patch: Partial<InstitutionSettings>,
): Promise<InstitutionSettings | null> {
  const { rows } = await db.query<{ allow: boolean; questions: boolean }>(
    `UPDATE institutions SET allow_proctoring_relaxations = COALESCE($2, allow_proctoring_relaxations),
                             report_shows_questions = COALESCE($3, report_shows_questions)
      WHERE id = $1 RETURNING ${COLUMNS}`,
    [institutionId, patch.allowProctoringRelaxations ?? null, patch.reportShowsQuestions ?? null],
  );
  return rows[0] ? view(rows[0]) : null;
}
