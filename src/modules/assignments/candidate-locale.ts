import type { Queryable } from '../../platform/db.js';

/**
 * Keeps the language the candidate chose for their assignment: the pages,
 * the report and the mails prefer it to the partner's `locale`. Only the
 * assignment's own user changes it; the statement changes nothing else.
 */
export async function setCandidateLocale(db: Queryable, a: { institutionId: string; assignmentId: string; userId: string; locale: string }): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'set-candidate-locale',
    text: 'UPDATE assignments SET candidate_locale = $4 WHERE institution_id = $1 AND id = $2 AND user_id = $3',
    values: [a.institutionId, a.assignmentId, a.userId, a.locale],
  });
  return rowCount === 1;
}
